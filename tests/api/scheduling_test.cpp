// Scheduling: worker identity, the priority policy's order on one worker,
// released successors in registration order, the
// throttle (a small JOULE_THROTTLE_TASKS still completes 100000 tasks
// correctly), and every policy running a mixed workload to completion.
#include "runtime_sweep.hpp"
#include "test_support.hpp"

#include <joule/joule.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

namespace {

using namespace joule_test;

class Workers : public sweep_test {};

TEST_P(Workers, NumWorkersMatchesConfiguration) { EXPECT_EQ(joule::num_workers(), workers()); }

TEST_P(Workers, MainThreadIsWorkerZero) { EXPECT_EQ(joule::worker_id(), 0); }

TEST_P(Workers, WorkerIdInRangeInsideTasks) {
  std::atomic<int> bad{0};
  const int n = joule::num_workers();
  for (int i = 0; i < 2000; ++i) {
    joule::spawn([&, n] {
      const int id = joule::worker_id();
      if (id < 0 || id >= n) bad.fetch_add(1);
      joule::spawn([&, n] {
        const int cid = joule::worker_id();
        if (cid < 0 || cid >= n) bad.fetch_add(1);
      });
    });
  }
  joule::taskwait();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(joule::worker_id(), 0);
}

TEST_P(Workers, ForeignThreadIsNotAWorker) {
  int id = 0;
  std::thread([&] { id = joule::worker_id(); }).join();
  EXPECT_EQ(id, -1);
}

// A mixed workload of dependent and independent, nested and flat tasks
// completes with the right result under every policy.
TEST_P(Workers, MixedWorkloadCompletes) {
  long cells[8] = {};
  std::atomic<long> flat{0};
  for (int i = 0; i < 400; ++i) {
    long& c = cells[i % 8];
    joule::spawn({joule::inout(c)}, [&c, &flat, i] {
      ++c;
      if (i % 10 == 0)
        for (int j = 0; j < 5; ++j) joule::spawn([&flat] { flat.fetch_add(1); });
    });
    joule::spawn([&flat] { flat.fetch_add(1); });
  }
  joule::taskwait();
  for (long c : cells) EXPECT_EQ(c, 50);
  EXPECT_EQ(flat.load(), 400 + 40 * 5);
}

INSTANTIATE_TEST_SUITE_P(Sweep, Workers, testing::ValuesIn(full_sweep()), config_namer{});

// ---- idle -------------------------------------------------------------------

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The process's CPU time over the wall time of a window of length w in which
// the calling thread sleeps: what the runtime's idle workers use meanwhile.
double cpu_share_over(std::chrono::milliseconds w) {
  const auto wall0 = std::chrono::steady_clock::now();
  const double cpu0 = process_cpu_seconds();
  std::this_thread::sleep_for(w);  // the measurement window, not a wait for an event
  const double cpu = process_cpu_seconds() - cpu0;
  return cpu / std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
}

// After a short spin, idle workers sleep: a runtime with 4 workers and no
// work uses a small fraction of the CPU time it could burn while the main
// thread sleeps (a generous ratio within one run, not a timing assertion).
// The end of the spin is waited for as an event (a quiet 20 ms window), not
// by sleeping for "long enough".
class Idle : public testing::TestWithParam<const char*> {};

TEST_P(Idle, IdleWorkersSleep) {
  auto rt = start_runtime({4, "work-stealing", true}, {{"JOULE_SPIN_US", GetParam()}});
  std::atomic<int> n{0};
  for (int i = 0; i < 1000; ++i) joule::spawn([&n] { n.fetch_add(1); });
  joule::taskwait();
  EXPECT_EQ(n.load(), 1000);
  // Spinning workers would use about 2 CPUs (4 workers on 2 CPUs); allow a
  // quarter of one, for sanitizer and load noise.
  ASSERT_TRUE(eventually([] { return cpu_share_over(20ms) < 0.25; }, 10s))
      << "the idle workers never stopped spinning";
  const double share = cpu_share_over(300ms);
  EXPECT_LT(share, 0.25) << "idle runtime used " << share << " CPUs over 300 ms";
}

INSTANTIATE_TEST_SUITE_P(Spin, Idle, testing::Values("0", "100", "10000"),
                         [](const testing::TestParamInfo<const char*>& p) {
                           return std::string("spin_us_") + p.param;
                         });

// ---- priority -------------------------------------------------------------

class Priority : public testing::TestWithParam<bool> {};

std::vector<int> shuffled_priorities(int n) {
  std::vector<int> p;
  for (int i = 0; i < n; ++i) p.push_back(i - n / 3);  // negative ones too
  std::shuffle(p.begin(), p.end(), std::mt19937(12345));
  return p;
}

void expect_non_increasing(const std::vector<int>& order) {
  for (std::size_t i = 1; i < order.size(); ++i)
    EXPECT_GE(order[i - 1], order[i]) << "position " << i;
}

// Ready tasks: with one worker, higher priority runs first.
TEST_P(Priority, HigherFirstOnOneWorker) {
  auto rt = start_runtime({1, "priority", GetParam()});
  std::mutex m;
  std::vector<int> order;
  for (int p : shuffled_priorities(40)) {
    joule::task_options o;
    o.priority = p;
    joule::spawn(
        [&, p] {
          std::lock_guard lock(m);
          order.push_back(p);
        },
        o);
  }
  joule::taskwait();
  ASSERT_EQ(order.size(), 40u);
  expect_non_increasing(order);
}

// Tasks made ready together by one predecessor also run by priority
// (immediate successor off, since it may legitimately pick any successor).
TEST(PriorityReleased, HigherFirstAfterRelease) {
  auto rt = start_runtime({1, "priority", false});
  long gate = 0;
  std::mutex m;
  std::vector<int> order;
  joule::spawn({joule::out(gate)}, [&gate] { gate = 1; });
  for (int p : shuffled_priorities(30)) {
    joule::task_options o;
    o.priority = p;
    joule::spawn(
        {joule::in(gate)},
        [&, p] {
          std::lock_guard lock(m);
          order.push_back(p);
        },
        o);
  }
  joule::taskwait();
  ASSERT_EQ(order.size(), 30u);
  expect_non_increasing(order);
}

std::string is_name(const testing::TestParamInfo<bool>& p) { return p.param ? "is" : "nois"; }
INSTANTIATE_TEST_SUITE_P(Sweep, Priority, testing::Bool(), is_name);

// ---- released successors --------------------------------------------------

// The successors one completion makes ready run in the order they were
// registered, whichever end of its queue a policy serves first (a program
// registers its critical path first as a rule: a factorization's next
// panel before the trailing updates).
class ReleasedOrder : public testing::TestWithParam<sweep_config> {};

TEST_P(ReleasedOrder, RegistrationOrderOnOneWorker) {
  auto rt = start_runtime(GetParam());
  for (int n : {2, 5, 40}) {  // 40: more than the release loop keeps on the stack
    long gate = 0;
    std::mutex m;
    std::vector<int> order;
    joule::spawn({joule::out(gate)}, [&gate] { gate = 1; });
    for (int i = 0; i < n; ++i) {
      joule::spawn({joule::in(gate)}, [&, i] {
        std::lock_guard lock(m);
        order.push_back(i);
      });
    }
    joule::taskwait();
    ASSERT_EQ(order.size(), std::size_t(n));
    for (int i = 0; i < n; ++i) EXPECT_EQ(order[i], i) << n << " successors, position " << i;
  }
}

std::vector<sweep_config> released_order_configs() {
  std::vector<sweep_config> v;
  for (const char* q : {"work-stealing", "lifo", "fifo"})
    for (bool is : {true, false}) v.push_back({1, q, is});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Policies, ReleasedOrder, testing::ValuesIn(released_order_configs()),
                         [](const testing::TestParamInfo<sweep_config>& p) {
                           return config_name(p.param);
                         });

// ---- throttle -------------------------------------------------------------

class Throttle : public testing::TestWithParam<sweep_config> {};

TEST_P(Throttle, ManyIndependentTasksComplete) {
  auto rt = start_runtime(GetParam(), {{"JOULE_THROTTLE_TASKS", "16"}});
  const int n = under_sanitizer() ? 20000 : 100000;
  std::atomic<long> sum{0};
  for (int i = 0; i < n; ++i) joule::spawn([&sum, i] { sum.fetch_add(i); });
  joule::taskwait();
  EXPECT_EQ(sum.load(), static_cast<long>(n) * (n - 1) / 2);
}

TEST_P(Throttle, ManyDependentTasksInOrder) {
  auto rt = start_runtime(GetParam(), {{"JOULE_THROTTLE_TASKS", "16"}});
  const int n = under_sanitizer() ? 20000 : 100000;
  long cells[8] = {};
  std::atomic<int> bad{0};
  for (int i = 0; i < n; ++i) {
    long& c = cells[i % 8];
    const long want = i / 8;
    joule::spawn({joule::inout(c)}, [&c, &bad, want] {
      if (c != want) bad.fetch_add(1);
      ++c;
    });
  }
  joule::taskwait();
  EXPECT_EQ(bad.load(), 0);
  for (int k = 0; k < 8; ++k) EXPECT_EQ(cells[k], n / 8 + (k < n % 8 ? 1 : 0)) << k;
}

// Throttling inside a task: a parent creating many children.
TEST_P(Throttle, NestedCreatorComplete) {
  auto rt = start_runtime(GetParam(), {{"JOULE_THROTTLE_TASKS", "16"}});
  std::atomic<long> count{0};
  for (int p = 0; p < 4; ++p)
    joule::spawn([&count] {
      long x = 0;
      for (int i = 0; i < 5000; ++i) {
        joule::spawn({joule::inout(x)}, [&x] { ++x; });
        joule::spawn([&count] { count.fetch_add(1); });
      }
      joule::taskwait();
      count.fetch_add(x);
    });
  joule::taskwait();
  EXPECT_EQ(count.load(), 4 * 10000);
}

std::vector<sweep_config> throttle_sweep() {
  std::vector<sweep_config> v = worker_sweep();
  v.push_back({2, "fifo", true});
  v.push_back({2, "lifo", true});
  v.push_back({2, "priority", true});
  v.push_back({2, "work-stealing", false});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Sweep, Throttle, testing::ValuesIn(throttle_sweep()), config_namer{});

}  // namespace
