// The C lending API (joule.h) and the DLB-compatible names (dlb.h) between
// two processes with one CPU each, without the runtime: lend, borrow,
// reclaim, return, callbacks, DROM.
#include <gtest/gtest.h>

#include <sched.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "joule/dlb.h"
#include "joule/joule.h"
#include "lending_support.hpp"

namespace {

using namespace lending_test;

class LendingApi : public NodeLendingTest {
 protected:
  LendingApi() : NodeLendingTest("api") {}
};

joule_cpu_info_t info_of(int cpu) {
  joule_cpu_info_t i{};
  joule_get_cpu_info(cpu, &i);
  return i;
}

TEST_F(LendingApi, CallsFailCleanlyWhenLendingIsNotActive) {
  EXPECT_EQ(joule_lending_active(), 0);
  EXPECT_EQ(joule_lend(), JOULE_ERR_STATE);
  EXPECT_EQ(joule_reclaim_cpu(0), JOULE_ERR_STATE);
  int n = 0;
  EXPECT_EQ(joule_cpus_available_now(&n), JOULE_ERR_STATE);
  EXPECT_EQ(joule_lending_stop(), JOULE_ERR_STATE);
  EXPECT_EQ(joule_blocking_enter(), JOULE_ERR_STATE);  // the MPI wrappers ignore this
  ::setenv("JOULE_LENDING", "off", 1);
  EXPECT_EQ(joule_lending_start(JOULE_LENDING_FROM_CONFIG), JOULE_ERR_STATE);
  EXPECT_EQ(joule_lending_start(42), JOULE_ERR_INVALID);
  ::setenv("JOULE_LENDING", "bogus", 1);
  EXPECT_EQ(joule_lending_start(JOULE_LENDING_FROM_CONFIG), JOULE_ERR_CONFIG);
}

TEST_F(LendingApi, StartOwnsTheAffinityMaskAndRefusesAnOwnedCpu) {
  ASSERT_TRUE(pin_to(0));
  ASSERT_EQ(joule_lending_start(JOULE_LENDING_FROM_CONFIG), JOULE_OK);
  EXPECT_EQ(joule_lending_active(), 1);
  EXPECT_EQ(info_of(0).state, JOULE_CPU_BUSY);
  EXPECT_EQ(info_of(0).owner_pid, int(::getpid()));
  EXPECT_EQ(info_of(1).state, JOULE_CPU_DISABLED);
  joule_cpu_info_t i{};
  EXPECT_EQ(joule_get_cpu_info(4096, &i), JOULE_ERR_INVALID);
  const pid_t child = fork_child([] {
    CHILD_CHECK(pin_to(0));  // the same CPU: refused, with a clear reason
    CHILD_CHECK(joule_lending_start(JOULE_LENDING_FROM_CONFIG) == JOULE_ERR_CONFIG);
  });
  EXPECT_EQ(wait_child(child), 0);
}

TEST_F(LendingApi, LendBorrowReclaimReturnAcrossProcesses) {
  Channel to_child, to_parent;
  const pid_t child = fork_child([&] {
    CHILD_CHECK(pin_to(1));
    CHILD_CHECK(joule_lending_start(JOULE_LENDING_NODE) == JOULE_OK);
    CHILD_CHECK(joule_lend_cpu(1) == JOULE_OK);
    to_parent.send('L');
    CHILD_CHECK(to_child.recv() == 'B');
    CHILD_CHECK(joule_reclaim_cpu(1) == JOULE_OK);  // pending: the parent runs there
    CHILD_CHECK(info_of(1).state == JOULE_CPU_CLAIMED && !info_of(1).usable);
    to_parent.send('C');
    CHILD_CHECK(eventually([] { return info_of(1).usable != 0; }));
    CHILD_CHECK(joule_lending_stop() == JOULE_OK);
  });
  ASSERT_TRUE(pin_to(0));
  ASSERT_EQ(joule_lending_start(JOULE_LENDING_NODE), JOULE_OK);
  ASSERT_EQ(to_parent.recv(), 'L');
  int n = 0;
  EXPECT_EQ(joule_cpus_available_now(&n), JOULE_OK);
  EXPECT_EQ(n, 2);  // our CPU and the lent one
  int cpus[4] = {-1, -1, -1, -1}, got = 0;
  EXPECT_EQ(joule_borrow_up_to(4, cpus, &got), JOULE_OK);
  ASSERT_EQ(got, 1);
  EXPECT_EQ(cpus[0], 1);
  EXPECT_EQ(info_of(1).state, JOULE_CPU_BORROWED);
  EXPECT_EQ(info_of(1).guest_pid, int(::getpid()));
  EXPECT_EQ(joule_reclaim_cpu(1), JOULE_ERR_STATE);  // only owners reclaim
  to_child.send('B');
  ASSERT_EQ(to_parent.recv(), 'C');
  EXPECT_EQ(joule_return_cpu(1), JOULE_OK);
  EXPECT_EQ(wait_child(child), 0);
  EXPECT_EQ(joule_lend_cpu(0), JOULE_OK);
  EXPECT_EQ(info_of(0).state, JOULE_CPU_IDLE);
  EXPECT_EQ(joule_reclaim(), JOULE_OK);
  EXPECT_EQ(info_of(0).state, JOULE_CPU_BUSY);
  int given = 0;
  EXPECT_EQ(joule_give_back(1, nullptr, &given), JOULE_OK);
  EXPECT_EQ(given, 0);  // never the caller's own CPU
}

TEST_F(LendingApi, DromSetGetPoll) {
  Channel to_child, to_parent;
  const pid_t child = fork_child([&] {
    CHILD_CHECK(pin_to(1));
    CHILD_CHECK(joule_lending_start(JOULE_LENDING_NODE) == JOULE_OK);
    to_parent.send('J');
    int changed = 0, cpus[4];
    size_t n = 0;
    CHILD_CHECK(
        eventually([&] { return joule_poll_drom(&changed, cpus, 4, &n) == JOULE_OK && changed; }));
    CHILD_CHECK(n == 2 && cpus[0] == 0 && cpus[1] == 1);
    CHILD_CHECK(to_child.recv() == 'Q');
  });
  ASSERT_TRUE(pin_to(0));
  ASSERT_EQ(joule_lending_start(JOULE_LENDING_NODE), JOULE_OK);
  ASSERT_EQ(to_parent.recv(), 'J');
  int cpus[4];
  size_t n = 0;
  EXPECT_EQ(joule_get_process_mask(child, cpus, 4, &n), JOULE_OK);
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(cpus[0], 1);
  const int both[] = {0, 1};
  EXPECT_EQ(joule_set_process_mask(child, both, 2), JOULE_ERR_STATE);  // CPU 0 is ours
  EXPECT_EQ(joule_set_process_mask(0, nullptr, 0), JOULE_OK);          // give it up
  EXPECT_EQ(joule_set_process_mask(child, both, 2), JOULE_OK);
  EXPECT_EQ(joule_get_process_mask(child, cpus, 4, &n), JOULE_OK);
  EXPECT_EQ(n, 2u);
  to_child.send('Q');
  EXPECT_EQ(wait_child(child), 0);
}

// ---- dlb.h ----

std::vector<int> g_enabled, g_disabled;
void on_enable(int cpu, void*) { g_enabled.push_back(cpu); }
void on_disable(int cpu, void*) { g_disabled.push_back(cpu); }

cpu_set_t mask_of(std::initializer_list<int> cpus) {
  cpu_set_t s;
  CPU_ZERO(&s);
  for (int c : cpus) CPU_SET(c, &s);
  return s;
}

TEST_F(LendingApi, DlbInitFinalizeAndErrors) {
  ::setenv("JOULE_LENDING", "off", 1);  // DLB_Init works whatever JOULE_LENDING says
  cpu_set_t m = mask_of({0});
  EXPECT_EQ(DLB_Lend(), DLB_ERR_NOINIT);
  ASSERT_EQ(DLB_Init(0, &m, nullptr), DLB_SUCCESS);
  EXPECT_EQ(DLB_Init(0, &m, nullptr), DLB_ERR_INIT);
  EXPECT_EQ(DLB_LendCpu(1), DLB_ERR_PERM);   // not ours
  EXPECT_EQ(DLB_ReclaimCpu(0), DLB_NOUPDT);  // already ours
  EXPECT_EQ(DLB_Borrow(), DLB_NOUPDT);       // nothing idle
  EXPECT_EQ(DLB_CheckCpuAvailability(0), DLB_SUCCESS);
  EXPECT_EQ(DLB_CheckCpuAvailability(1), DLB_ERR_PERM);
  EXPECT_EQ(DLB_Disable(), DLB_SUCCESS);
  EXPECT_EQ(DLB_Lend(), DLB_ERR_DISBLD);
  EXPECT_EQ(DLB_Enable(), DLB_SUCCESS);
  EXPECT_STREQ(DLB_Strerror(DLB_ERR_PERM),
               "The resource cannot be acquired: not owned or not available");
  EXPECT_EQ(DLB_CallbackSet(dlb_callback_enable_cpu, (dlb_callback_t)on_enable, nullptr),
            DLB_SUCCESS);
  dlb_callback_t cb = nullptr;
  void* arg = (void*)1;
  EXPECT_EQ(DLB_CallbackGet(dlb_callback_enable_cpu, &cb, &arg), DLB_SUCCESS);
  EXPECT_EQ(cb, (dlb_callback_t)on_enable);
  EXPECT_EQ(arg, nullptr);
  EXPECT_EQ(DLB_CallbackGet(dlb_callback_disable_cpu, &cb, &arg), DLB_ERR_NOCBK);
  g_enabled.clear();
  EXPECT_EQ(DLB_LendCpu(0), DLB_SUCCESS);
  EXPECT_EQ(DLB_Reclaim(), DLB_SUCCESS);
  EXPECT_EQ(g_enabled, std::vector<int>{0});
  EXPECT_EQ(DLB_Finalize(), DLB_SUCCESS);
  EXPECT_EQ(DLB_Finalize(), DLB_ERR_NOINIT);
  EXPECT_EQ(joule_lending_active(), 0);
}

// The owner reclaims a CPU the other process borrowed: DLB_NOTED, then the
// borrower's next DLB call (polling) disables and returns it, and the
// owner's next call enables it.
TEST_F(LendingApi, DlbReclaimIsNotedThenCallbacksHandOver) {
  Channel to_child, to_parent;
  const pid_t child = fork_child([&] {
    g_enabled.clear();
    cpu_set_t m = mask_of({1});
    CHILD_CHECK(DLB_Init(0, &m, nullptr) == DLB_SUCCESS);
    CHILD_CHECK(DLB_CallbackSet(dlb_callback_enable_cpu, (dlb_callback_t)on_enable, nullptr) == 0);
    CHILD_CHECK(DLB_Lend() == DLB_SUCCESS);
    to_parent.send('L');
    CHILD_CHECK(to_child.recv() == 'B');
    CHILD_CHECK(DLB_ReclaimCpu(1) == DLB_NOTED);
    CHILD_CHECK(DLB_CheckCpuAvailability(1) == DLB_NOUPDT);
    to_parent.send('C');
    CHILD_CHECK(to_child.recv() == 'R');
    CHILD_CHECK(DLB_CheckCpuAvailability(1) == DLB_SUCCESS);  // polls: enable_cpu(1)
    CHILD_CHECK(g_enabled == std::vector<int>{1});
    CHILD_CHECK(DLB_Finalize() == DLB_SUCCESS);
  });
  cpu_set_t m = mask_of({0});
  ASSERT_EQ(DLB_Init(0, &m, nullptr), DLB_SUCCESS);
  ASSERT_EQ(DLB_CallbackSet(dlb_callback_disable_cpu, (dlb_callback_t)on_disable, nullptr), 0);
  ASSERT_EQ(to_parent.recv(), 'L');
  EXPECT_EQ(DLB_BorrowCpu(1), DLB_SUCCESS);
  EXPECT_EQ(DLB_BorrowCpu(1), DLB_NOUPDT);
  to_child.send('B');
  ASSERT_EQ(to_parent.recv(), 'C');
  g_disabled.clear();
  EXPECT_EQ(DLB_Borrow(), DLB_NOUPDT);  // polls first: disable_cpu(1) + return
  EXPECT_EQ(g_disabled, std::vector<int>{1});
  EXPECT_EQ(info_of(1).guest_pid, 0);
  to_child.send('R');
  EXPECT_EQ(wait_child(child), 0);
  EXPECT_EQ(DLB_Finalize(), DLB_SUCCESS);
}

TEST_F(LendingApi, DlbDromFromAManagerProcess) {
  Channel to_child, to_parent;
  const pid_t child = fork_child([&] {
    cpu_set_t m = mask_of({1});
    CHILD_CHECK(DLB_Init(0, &m, nullptr) == DLB_SUCCESS);
    to_parent.send('J');
    int n = 0;
    cpu_set_t got;
    CHILD_CHECK(eventually([&] { return DLB_PollDROM(&n, &got) == DLB_SUCCESS; }));
    CHILD_CHECK(n == 2 && CPU_ISSET(0, &got) && CPU_ISSET(1, &got));
    CHILD_CHECK(to_child.recv() == 'Q');
    CHILD_CHECK(DLB_Finalize() == DLB_SUCCESS);
  });
  ASSERT_EQ(to_parent.recv(), 'J');
  ASSERT_EQ(DLB_DROM_Attach(), DLB_SUCCESS);  // a manager: owns nothing
  int ncpus = 0, pids[8], np = 0;
  EXPECT_EQ(DLB_DROM_GetNumCpus(&ncpus), DLB_SUCCESS);
  EXPECT_GE(ncpus, 2);
  EXPECT_EQ(DLB_DROM_GetPidList(pids, &np, 8), DLB_SUCCESS);
  ASSERT_EQ(np, 1);
  EXPECT_EQ(pids[0], int(child));
  cpu_set_t m;
  EXPECT_EQ(DLB_DROM_GetProcessMask(child, &m, DLB_DROM_FLAGS_NONE), DLB_SUCCESS);
  EXPECT_TRUE(CPU_ISSET(1, &m) && !CPU_ISSET(0, &m));
  cpu_set_t both = mask_of({0, 1});
  EXPECT_EQ(DLB_SetProcessMask(child, &both), DLB_SUCCESS);  // synchronous
  EXPECT_EQ(DLB_GetProcessMask(child, &m), DLB_SUCCESS);
  EXPECT_TRUE(CPU_ISSET(0, &m) && CPU_ISSET(1, &m));
  EXPECT_EQ(DLB_DROM_SetProcessMask(::getpid(), &both, DLB_SYNC_QUERY), DLB_ERR_NOPROC);
  to_child.send('Q');
  EXPECT_EQ(wait_child(child), 0);
  EXPECT_EQ(DLB_DROM_Detach(), DLB_SUCCESS);
}

}  // namespace
