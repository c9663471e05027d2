// The runtime with JOULE_LENDING=node, two processes with one CPU each (fork):
// the child blocks (as in an MPI call) and lends its CPU; the parent's ready
// tasks run on it through a guest worker; the child gets it back when it
// leaves the blocking call. Public API only (joule.h).
#include <gtest/gtest.h>

#include <sched.h>

#include <atomic>
#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "joule/dlb.h"
#include "joule/joule.h"
#include "lending_support.hpp"

namespace {

using namespace lending_test;

int start_runtime(const std::string& shm, const char* cpus) {
  const char* keys[] = {"JOULE_LENDING", "JOULE_LENDING_SHM", "JOULE_CPUS", "JOULE_SPIN_US"};
  const char* values[] = {"node", shm.c_str(), cpus, "50"};
  return joule_init_with(keys, values, 4);
}

struct Record {
  std::atomic<int> on_cpu[2];
};

void spin_task(void* arg) {
  auto* rec = *static_cast<Record**>(arg);
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(2000);
  while (std::chrono::steady_clock::now() < until) {
  }
  const int cpu = sched_getcpu();
  if (cpu == 0 || cpu == 1) rec->on_cpu[cpu].fetch_add(1);
}

void submit_spins(Record* rec, int n) {
  for (int i = 0; i < n; ++i) {
    joule_task_t* t = nullptr;
    void* args = nullptr;
    ASSERT_EQ(joule_task_create(spin_task, sizeof(Record*), nullptr, &t, &args), JOULE_OK);
    *static_cast<Record**>(args) = rec;
    ASSERT_EQ(joule_task_submit(t), JOULE_OK);
  }
}

// The child: runtime on CPU 1, enters a blocking call (lends CPU 1), waits
// for the parent, leaves (gets CPU 1 back), reports what the table says.
pid_t blocking_child(const std::string& shm, Channel& to_child, Channel& to_parent) {
  return fork_child([&] {
    CHILD_CHECK(start_runtime(shm, "1") == JOULE_OK);
    CHILD_CHECK(joule_lending_active() == 1);
    CHILD_CHECK(to_child.recv() == 'G');
    CHILD_CHECK(joule_blocking_enter() == JOULE_OK);
    joule_cpu_info_t info{};
    CHILD_CHECK(joule_get_cpu_info(1, &info) == JOULE_OK && info.state == JOULE_CPU_IDLE);
    to_parent.send('E');
    CHILD_CHECK(to_child.recv() == 'L');
    CHILD_CHECK(joule_blocking_leave() == JOULE_OK);
    CHILD_CHECK(joule_get_cpu_info(1, &info) == JOULE_OK);
    CHILD_CHECK(info.state == JOULE_CPU_BUSY && info.owner_pid == int(::getpid()) && info.usable);
    CHILD_CHECK(joule_finalize() == JOULE_OK);
  });
}

class RuntimeLending : public ::testing::Test {
 protected:
  void SetUp() override {
    if (online_cpus() < 2) GTEST_SKIP() << "needs 2 CPUs";
  }
  ShmGuard shm_{unique_shm("rt")};
};

TEST_F(RuntimeLending, WorkSubmittedAfterTheLendRunsOnTheBorrowedCpu) {
  Channel to_child, to_parent;
  const pid_t child = blocking_child(shm_.name, to_child, to_parent);
  to_child.send('G');
  ASSERT_EQ(to_parent.recv(), 'E');
  ASSERT_EQ(start_runtime(shm_.name, "0"), JOULE_OK);
  Record rec{};
  submit_spins(&rec, 200);
  EXPECT_EQ(joule_taskwait(), JOULE_OK);
  std::printf("[ lending ] tasks on CPU 0: %d, on borrowed CPU 1: %d\n", rec.on_cpu[0].load(),
              rec.on_cpu[1].load());
  EXPECT_GT(rec.on_cpu[1].load(), 0);
  to_child.send('L');  // the child now waits for CPU 1 until our guest returns it
  EXPECT_EQ(joule_finalize(), JOULE_OK);
  EXPECT_EQ(wait_child(child), 0);
}

// The pils case: the work is already queued when the other process starts
// to block; the runtime notices the idle CPU at its task boundaries.
TEST_F(RuntimeLending, QueuedWorkBorrowsACpuLentLater) {
  Channel to_child, to_parent;
  const pid_t child = blocking_child(shm_.name, to_child, to_parent);
  ASSERT_EQ(start_runtime(shm_.name, "0"), JOULE_OK);
  Record rec{};
  submit_spins(&rec, 300);  // ~600 ms of work on one CPU
  to_child.send('G');
  EXPECT_EQ(joule_taskwait(), JOULE_OK);
  std::printf("[ lending ] tasks on CPU 0: %d, on borrowed CPU 1: %d\n", rec.on_cpu[0].load(),
              rec.on_cpu[1].load());
  EXPECT_GT(rec.on_cpu[1].load(), 0);
  EXPECT_EQ(to_parent.recv(), 'E');
  to_child.send('L');
  EXPECT_EQ(joule_finalize(), JOULE_OK);
  EXPECT_EQ(wait_child(child), 0);
}

// JOULE_LENDING=local: an idle worker lends its CPU (to nobody else) and parks;
// new work brings it back.
TEST_F(RuntimeLending, LocalModeParksIdleWorkersAndWakesThemForWork) {
  AffinityGuard affinity;
  const char* keys[] = {"JOULE_LENDING", "JOULE_CPUS", "JOULE_SPIN_US"};
  const char* values[] = {"local", "0,1", "10"};
  ASSERT_EQ(joule_init_with(keys, values, 3), JOULE_OK);
  ASSERT_EQ(joule_lending_active(), 1);
  joule_cpu_info_t info{};
  EXPECT_TRUE(eventually([&] {
    return joule_get_cpu_info(1, &info) == JOULE_OK && info.state == JOULE_CPU_IDLE;
  })) << "worker 1 never lent its CPU";
  for (int round = 0; round < 3; ++round) {
    Record rec{};
    submit_spins(&rec, 100);
    EXPECT_EQ(joule_taskwait(), JOULE_OK);
    EXPECT_EQ(rec.on_cpu[0].load() + rec.on_cpu[1].load(), 100);
  }
  EXPECT_EQ(joule_finalize(), JOULE_OK);
  EXPECT_EQ(joule_lending_active(), 0);
}

// DROM while tasks run: a manager process changes the mask of a running
// joule process (CPUs 0,1); its tasks keep running throughout. `steps` are
// the masks to apply in turn.
void drom_while_running(const std::string& shm, const std::vector<std::vector<int>>& steps) {
  Channel to_child, to_parent;
  const pid_t child = fork_child([&] {
    CHILD_CHECK(start_runtime(shm, "0,1") == JOULE_OK);
    to_parent.send('S');
    int batches = 0;
    while (to_child.recv(0) != 'Q') {  // tasks keep running until told to stop
      Record rec{};
      submit_spins(&rec, 20);
      CHILD_CHECK(joule_taskwait() == JOULE_OK);
      CHILD_CHECK(rec.on_cpu[0].load() + rec.on_cpu[1].load() == 20);
      ++batches;
    }
    CHILD_CHECK(batches > 0);
    CHILD_CHECK(joule_finalize() == JOULE_OK);
  });
  ASSERT_EQ(to_parent.recv(), 'S');
  ::setenv("JOULE_LENDING_SHM", shm.c_str(), 1);
  ASSERT_EQ(DLB_DROM_Attach(), DLB_SUCCESS);
  for (const auto& step : steps) {
    cpu_set_t want, now;
    CPU_ZERO(&want);
    for (int c : step) CPU_SET(c, &want);
    EXPECT_EQ(DLB_SetProcessMask(child, &want), DLB_SUCCESS) << "mask of " << step.size();
    EXPECT_EQ(DLB_GetProcessMask(child, &now), DLB_SUCCESS);
    EXPECT_TRUE(CPU_EQUAL(&want, &now));
  }
  EXPECT_EQ(DLB_DROM_Detach(), DLB_SUCCESS);
  ::unsetenv("JOULE_LENDING_SHM");
  to_child.send('Q');
  EXPECT_EQ(wait_child(child), 0);
}

TEST_F(RuntimeLending, DromRemovesACpuWhileTasksRun) { drom_while_running(shm_.name, {{0}}); }

// Once worker 1 is retired, worker 0 applies the next mask at its task
// boundaries (in taskwait).
TEST_F(RuntimeLending, DromRemovesThenAddsBackACpuWhileTasksRun) {
  drom_while_running(shm_.name, {{0}, {0, 1}});
}

}  // namespace

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// A mask without worker 0's CPU (the thread that called joule_init, on the
// first of JOULE_CPUS) could never be acknowledged: joule_set_process_mask
// and DLB_SetProcessMask refuse it at once, and a valid mask right after it
// is acknowledged well before JOULE_LENDING_DROM_TIMEOUT_MS.
TEST_F(RuntimeLending, DromRefusesToRemoveWorkerZerosCpu) {
  Channel to_child, to_parent;
  const pid_t child = fork_child([&] {
    CHILD_CHECK(start_runtime(shm_.name, "1") == JOULE_OK);
    to_parent.send('S');
    while (to_child.recv(0) != 'Q') {
      Record rec{};
      submit_spins(&rec, 4);
      CHILD_CHECK(joule_taskwait() == JOULE_OK);
    }
    CHILD_CHECK(joule_finalize() == JOULE_OK);
  });
  ASSERT_EQ(to_parent.recv(), 'S');
  AffinityGuard affinity;
  ASSERT_TRUE(pin_to(0));
  ::setenv("JOULE_LENDING_SHM", shm_.name.c_str(), 1);
  ASSERT_EQ(joule_lending_start(JOULE_LENDING_NODE), JOULE_OK);  // owns CPU 0
  EXPECT_EQ(joule_set_process_mask(0, nullptr, 0), JOULE_OK);    // no runtime: may own none
  auto t0 = std::chrono::steady_clock::now();
  const int only0[] = {0}, both[] = {0, 1};
  // (the message, naming worker 0, is checked in lending_hostile_test: the
  // lending calls do not set joule_last_error yet)
  EXPECT_EQ(joule_set_process_mask(child, nullptr, 0), JOULE_ERR_INVALID);
  EXPECT_EQ(joule_set_process_mask(child, only0, 1), JOULE_ERR_INVALID);  // without CPU 1
  cpu_set_t none;
  CPU_ZERO(&none);
  EXPECT_EQ(DLB_SetProcessMask(child, &none), DLB_ERR_PERM);
  EXPECT_LT(ms_since(t0), 1000.0) << "refused up front";
  t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(joule_set_process_mask(child, both, 2), JOULE_OK);
  EXPECT_LT(ms_since(t0), 2500.0) << "acknowledged on its own, not after the 5 s timeout";
  EXPECT_EQ(joule_lending_stop(), JOULE_OK);
  ::unsetenv("JOULE_LENDING_SHM");
  to_child.send('Q');
  EXPECT_EQ(wait_child(child), 0);
}

}  // namespace
