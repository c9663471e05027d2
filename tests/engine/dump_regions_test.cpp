// A hang that explains itself: `joule-ctl dump PID` names, for each task
// that waits, what it waits for. The program under test is this process: a
// task holds a region and blocks (Nanos6 blocking API) until the test has
// read the dump, a reader of that region waits for it, and a task sits in a
// taskwait for a child that blocks too. The dump must show the region's
// address, the holder (label, code, state), the waiter, the taskwait with
// its unfinished child, and the spare threads standing in for the blocked
// workers; at 1, 2, 4 workers and more workers than CPUs. Tasks suspended
// through ALPI for a time and for their events are listed with what they
// wait for, and every worker and spare thread with its kernel thread id.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "joule/alpi.h"
#include "joule/joule.hpp"
#include "joule/nanos6/nanos6.h"
#include "run_command.hpp"
#include "test_users.hpp"

namespace {

std::string dump_of_this_process() {
  return joule_test::run_command(std::string(JOULE_CTL) + " dump " + std::to_string(::getpid()));
}

std::string hex(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%#lx",
                static_cast<unsigned long>(reinterpret_cast<std::uintptr_t>(p)));
  return buf;
}

// The line of `out` that contains `what` ("" when none).
std::string line_with(const std::string& out, const std::string& what) {
  const auto at = out.find(what);
  if (at == std::string::npos) return "";
  const auto begin = out.rfind('\n', at) + 1;
  return out.substr(begin, out.find('\n', at) - begin);
}

// A blocking context a task publishes before it blocks; release() unblocks.
struct Gate {
  std::atomic<void*> context{nullptr};
  void block() {
    void* c = nanos6_get_current_blocking_context();
    context.store(c);
    nanos6_block_current_task(c);
  }
  bool published() const { return context.load() != nullptr; }
  void release() {
    if (void* c = context.exchange(nullptr)) nanos6_unblock_task(c);
  }
};

class DumpRegions : public ::testing::TestWithParam<int> {};

// What the dump of the hung program must say (read from another thread).
void check_dump(const std::string& out, const long* data) {
  const std::string region = "region " + hex(data) + ".." + hex(data + 4) + " (32 bytes):";
  EXPECT_NE(out.find(region), std::string::npos) << region << "\n" << out;
  const std::string holder = line_with(out, "held by (inout/out): task ");
  EXPECT_NE(holder.find("\"holder\" [code "), std::string::npos) << out;
  // The code: this test's executable and the body's offset in it.
  char exe[4096] = {};
  ASSERT_GT(::readlink("/proc/self/exe", exe, sizeof exe - 1), 0);
  EXPECT_NE(holder.find(std::string(exe) + "+0x"), std::string::npos) << exe << "\n" << out;
  EXPECT_NE(holder.find("blocked for "), std::string::npos) << out;
  EXPECT_NE(holder.find("a spare on worker "), std::string::npos) << out;
  const std::string waiter = line_with(out, "waiting (in): task ");
  EXPECT_NE(waiter.find("\"waiter\""), std::string::npos) << out;
  EXPECT_NE(waiter.find("not ready: waits for 1 earlier task(s) to finish"), std::string::npos)
      << out;
  // The taskwait may be the innermost wait of a thread or further down its
  // stack (the thread ran the blocked child inside the taskwait).
  const std::string taskwait = line_with(out, "\"in taskwait\" waits for its children (taskwait)");
  const std::string innermost = line_with(out, "waiting for its children (taskwait) (task ");
  EXPECT_TRUE(
      taskwait.find(", 1 of its children unfinished") != std::string::npos ||
      (innermost.find("\"in taskwait\", 1 of its children unfinished") != std::string::npos))
      << out;
  // The blocked child names its parent: the taskwait it holds up.
  const std::string child = line_with(out, "\"blocked child\" (a child of task ");
  EXPECT_NE(child.find("\"in taskwait\"), blocked for"), std::string::npos) << out;
  EXPECT_TRUE(std::regex_search(out, std::regex(R"(spare thread 0 \(tid \d+\): st)"))) << out;
  EXPECT_NE(out.find("stands in for worker "), std::string::npos) << out;
  EXPECT_NE(out.find("[exit 0]"), std::string::npos) << out;
}

TEST_P(DumpRegions, TheDumpNamesTheRegionItsHolderTheWaiterAndTheSpares) {
  joule::runtime rt({{"JOULE_WORKERS", std::to_string(GetParam())}});
  // A Nanos6 call ends the one-worker inline mode before the tasks exist
  // (docs/porting-ompss.md): the holder must not block main() inline.
  (void)nanos6_get_current_blocking_context();
  static long data[4];
  Gate holder_gate, child_gate;
  joule::task_options holder_opts, waiter_opts, parent_opts, child_opts;
  holder_opts.label = "holder";
  waiter_opts.label = "waiter";
  parent_opts.label = "in taskwait";
  child_opts.label = "blocked child";
  std::atomic<bool> waiter_ran{false};
  joule::spawn(
      {joule::inout(data, 4)}, [&] { holder_gate.block(); }, holder_opts);
  joule::spawn(
      {joule::in(data, 4)}, [&] { waiter_ran = true; }, waiter_opts);
  joule::spawn(
      [&] {
        joule::spawn([&] { child_gate.block(); }, child_opts);
        joule::taskwait();
      },
      parent_opts);
  // main() waits in a taskwait, as a hung program would; a thread outside
  // joule reads the dump and then releases the gates.
  std::thread observer([&] {
    EXPECT_TRUE(joule::test::eventually(
        [&] { return holder_gate.published() && child_gate.published(); }, 20000));
    std::string out;
    EXPECT_TRUE(joule::test::eventually(
        [&] {
          out = dump_of_this_process();
          return out.find("blocked tasks (Nanos6 / ALPI): 2") != std::string::npos &&
                 out.find("\"in taskwait\"") != std::string::npos &&
                 out.find("spare thread 0 (tid ") != std::string::npos;
        },
        20000))
        << out;
    EXPECT_FALSE(waiter_ran.load());
    check_dump(out, data);
    // In the log: docs/hang-dump.md shows this dump.
    std::printf("%s\n", out.c_str());
    child_gate.release();
    holder_gate.release();
  });
  joule::taskwait();
  observer.join();
  EXPECT_TRUE(waiter_ran.load());
}

// The tids the dump prints after `prefix` ("worker 0 (CPU 3, tid 4711"),
// by the number that follows `prefix`.
std::vector<std::pair<int, int>> tids_of(const std::string& out, const std::string& pattern) {
  std::vector<std::pair<int, int>> found;
  const std::regex re(pattern);
  for (auto it = std::sregex_iterator(out.begin(), out.end(), re); it != std::sregex_iterator();
       ++it)
    found.emplace_back(std::stoi((*it)[1]), std::stoi((*it)[2]));
  return found;
}

bool is_thread_of_this_process(int tid) {
  struct stat st {};
  return ::stat(("/proc/self/task/" + std::to_string(tid)).c_str(), &st) == 0;
}

void check_thread_ids(const std::string& out, int workers, int main_tid) {
  const auto worker_tids = tids_of(out, R"(\n  worker (\d+) \(CPU \d+, tid (\d+)[,)])");
  ASSERT_EQ(worker_tids.size(), std::size_t(workers)) << out;
  std::set<int> distinct;
  for (const auto& [index, tid] : worker_tids) {
    EXPECT_TRUE(is_thread_of_this_process(tid)) << "worker " << index << " tid " << tid << out;
    distinct.insert(tid);
    if (index == 0) EXPECT_EQ(tid, main_tid) << out;  // the thread that started joule
  }
  for (const auto& [index, tid] : tids_of(out, R"(\n  spare thread (\d+) \(tid (\d+)\): )")) {
    EXPECT_TRUE(is_thread_of_this_process(tid)) << "spare " << index << " tid " << tid << out;
    distinct.insert(tid);
  }
  EXPECT_GE(distinct.size(), std::size_t(workers)) << out;
}

// A task that suspends with a timeout until `stop`, each run 1 s later.
void suspend_for_a_time(const std::atomic<bool>& stop) {
  if (stop.load()) return;
  alpi_task* self = nullptr;
  ASSERT_EQ(alpi_task_self(&self), ALPI_SUCCESS);
  ASSERT_EQ(alpi_task_suspend_mode_set(self, ALPI_SUSPEND_TIMEOUT_SUBMIT, 1'000'000'000),
            ALPI_SUCCESS);
  ASSERT_EQ(alpi_task_suspend(self), ALPI_SUCCESS);
}

// A task that suspends once until its event is decreased (`self` is where
// the decreaser finds it).
void suspend_for_an_event(std::atomic<alpi_task*>& self) {
  if (self.load()) return;  // the second run
  alpi_task* me = nullptr;
  ASSERT_EQ(alpi_task_self(&me), ALPI_SUCCESS);
  ASSERT_EQ(alpi_task_events_increase(me, 1), ALPI_SUCCESS);
  ASSERT_EQ(alpi_task_suspend_mode_set(me, ALPI_SUSPEND_EVENT_SUBMIT, 0), ALPI_SUCCESS);
  ASSERT_EQ(alpi_task_suspend(me), ALPI_SUCCESS);
  self.store(me);
}

void check_suspended(const std::string& out) {
  const std::string timed = line_with(out, "\"waits for a time\" (a child of task ");
  EXPECT_NE(timed.find("\"suspender\"): suspended for "), std::string::npos) << out;
  EXPECT_NE(timed.find("(ALPI_SUSPEND_TIMEOUT_SUBMIT)"), std::string::npos) << out;
  const std::string evented = line_with(out, "\"waits for its event\" (a child of task ");
  EXPECT_NE(evented.find("runs again once its 1 outstanding event(s) are decreased"),
            std::string::npos)
      << out;
}

// A hang in a task-aware layer (TAMPI) is a task suspended for its events
// that nobody decreases: the dump lists it, with the parent whose taskwait
// it holds up, and names each thread as gdb and `top -H` do.
TEST_P(DumpRegions, SuspendedTasksAndThreadIdsAreListed) {
  joule::runtime rt({{"JOULE_WORKERS", std::to_string(GetParam())}});
  (void)nanos6_get_current_blocking_context();
  const int main_tid = int(::syscall(SYS_gettid));
  std::atomic<bool> stop{false};
  std::atomic<alpi_task*> evented{nullptr};
  joule::task_options parent_opts, timed_opts, evented_opts;
  parent_opts.label = "suspender";
  timed_opts.label = "waits for a time";
  evented_opts.label = "waits for its event";
  joule::spawn(
      [&] {
        joule::spawn([&] { suspend_for_a_time(stop); }, timed_opts);
        joule::spawn([&] { suspend_for_an_event(evented); }, evented_opts);
        joule::taskwait();
      },
      parent_opts);
  std::thread observer([&] {
    std::string out;
    EXPECT_TRUE(joule::test::eventually(
        [&] {
          out = dump_of_this_process();
          return out.find("suspended tasks (ALPI), waiting for a time or their events: 2") !=
                     std::string::npos &&
                 out.find("(ALPI_SUSPEND_TIMEOUT_SUBMIT)") != std::string::npos &&
                 tids_of(out, R"(\n  worker (\d+) \(CPU \d+, tid (\d+)[,)])").size() ==
                     std::size_t(GetParam());
        },
        20000))
        << out;
    check_suspended(out);
    check_thread_ids(out, GetParam(), main_tid);
    std::printf("%s\n", out.c_str());
    stop = true;
    EXPECT_TRUE(joule::test::eventually([&] { return evented.load() != nullptr; }, 20000));
    alpi_task_events_decrease(evented.load(), 1);
  });
  joule::taskwait();
  observer.join();
}

INSTANTIATE_TEST_SUITE_P(Workers, DumpRegions,
                         ::testing::Values(1, 2, 4,
                                           int(std::thread::hardware_concurrency()) * 2 + 1));

// A million-task graph's dump stays short: many readers wait on one held
// region and many regions are held; the dump lists the first few of each
// and counts the rest.
TEST(DumpRegionsBounds, ManyWaitersAndRegionsAreCountedNotListed) {
  joule::runtime rt({{"JOULE_WORKERS", "2"}});
  (void)nanos6_get_current_blocking_context();
  constexpr int kRegions = 200;
  constexpr int kReaders = 5000;
  static long cells[kRegions];
  Gate gate;
  std::atomic<int> ran{0};
  joule::task_options opts;
  opts.label = "holds every cell";
  joule::spawn(
      {joule::inout(cells, kRegions)}, [&] { gate.block(); }, opts);
  for (int i = 0; i < kReaders; ++i) joule::spawn({joule::in(cells[i % kRegions])}, [&] { ++ran; });
  std::thread observer([&] {
    EXPECT_TRUE(joule::test::eventually([&] { return gate.published(); }, 20000));
    const std::string out = dump_of_this_process();
    // 25 readers per cell: 4 listed; 16 regions listed.
    EXPECT_NE(out.find("... and 21 more unfinished task(s) waiting"), std::string::npos) << out;
    EXPECT_NE(out.find("... and 184 more such region(s)"), std::string::npos) << out;
    EXPECT_LT(out.size(), 64u * 1024) << out;
    EXPECT_EQ(ran.load(), 0);
    gate.release();
  });
  joule::taskwait();
  observer.join();
  EXPECT_EQ(ran.load(), kReaders);
}

}  // namespace
