// taskwait waits for all children (and their descendants); taskwait_on waits
// only for the earlier tasks that touch the given data. The "does not wait"
// checks use a long task blocked on a flag that the test releases only after
// the wait returned, so nothing depends on timing.
#include "runtime_sweep.hpp"
#include "test_support.hpp"

#include <joule/joule.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

using namespace joule_test;
using std::chrono::microseconds;

class Taskwait : public sweep_test {
 protected:
  // Starts a task that blocks until `release` is set (or a long timeout);
  // returns once it is running on another worker, so the calling thread
  // cannot end up running it inside the wait under test.
  void start_blocker(std::initializer_list<joule::dep> deps) {
    joule::spawn(deps, [this] {
      started_.store(true);
      released_in_time_.store(wait_flag(release_));
      finished_.store(true);
    });
    ASSERT_TRUE(eventually([&] { return started_.load(); })) << "the long task never started";
  }

  std::atomic<bool> started_{false}, release_{false}, finished_{false};
  std::atomic<bool> released_in_time_{false};
};

TEST_P(Taskwait, WaitsForAllChildrenAndDescendants) {
  std::atomic<int> done{0};
  for (int i = 0; i < 20; ++i) {
    joule::spawn([&done] {
      joule::spawn([&done] {
        spin_for(microseconds(100));
        done.fetch_add(1);
      });
      done.fetch_add(1);
    });
  }
  joule::taskwait();
  EXPECT_EQ(done.load(), 40);
}

// A taskwait with nothing to wait for returns without waiting for (or
// running) tasks that are not its children, and leaves nothing behind: an
// exception already rethrown is not rethrown again, and new tasks still run.
// The wait is bounded by finishes_within (a generous timeout), not timed.
TEST_P(Taskwait, NoChildrenReturnsAtOnce) {
  joule::spawn([] { throw std::runtime_error("child"); });
  EXPECT_THROW(joule::taskwait(), std::runtime_error);
  EXPECT_NO_THROW(joule::taskwait()) << "a consumed exception was rethrown";

  // A task of the main thread that stays unfinished until released.
  auto release = std::make_shared<std::atomic<bool>>(false);
  auto finished = std::make_shared<std::atomic<bool>>(false);
  joule::spawn([release, finished] {
    wait_flag(*release);
    finished->store(true);
  });
  // Another thread has no children: its taskwait returns meanwhile (10 s:
  // well before the task above gives up waiting for its release).
  EXPECT_TRUE(finishes_within(
      [] {
        joule::taskwait();
        joule::taskwait();
      },
      10s))
      << "taskwait without children did not return";
  EXPECT_FALSE(finished->load()) << "it waited for a task that is not its child";
  release->store(true);
  joule::taskwait();
  EXPECT_TRUE(finished->load());

  std::atomic<int> after{0};
  for (int i = 0; i < 10; ++i) joule::spawn([&after] { after.fetch_add(1); });
  joule::taskwait();
  EXPECT_EQ(after.load(), 10) << "tasks spawned after the empty taskwaits";
}

TEST_P(Taskwait, ReusableAcrossRounds) {
  long x = 0;
  for (int round = 0; round < 50; ++round) {
    joule::spawn({joule::inout(x)}, [&x] { ++x; });
    joule::spawn({joule::inout(x)}, [&x] { x *= 2; });
    joule::taskwait();
  }
  long expect = 0;
  for (int round = 0; round < 50; ++round) expect = (expect + 1) * 2 % (1L << 40);
  EXPECT_EQ(x % (1L << 40), expect);
}

// A taskwait inside a task waits for that task's children, not for its
// siblings: it returns while a long sibling still runs.
TEST_P(Taskwait, InsideTaskIgnoresSiblings) {
  if (workers() < 2) GTEST_SKIP() << "needs a second worker to hold the long task";
  ASSERT_NO_FATAL_FAILURE(start_blocker({}));
  std::atomic<bool> sibling_running_after_wait{false};
  std::atomic<int> children{0};
  joule::spawn([&] {
    for (int i = 0; i < 4; ++i) joule::spawn([&children] { children.fetch_add(1); });
    joule::taskwait();
    sibling_running_after_wait.store(!finished_.load() && children.load() == 4);
    release_.store(true);
  });
  joule::taskwait();
  EXPECT_TRUE(sibling_running_after_wait.load());
  EXPECT_TRUE(released_in_time_.load());
}

// taskwait_on(x) returns while an unrelated long task is still running.
TEST_P(Taskwait, OnWaitsOnlyForTasksTouchingTheData) {
  if (workers() < 2) GTEST_SKIP() << "needs a second worker to hold the long task";
  long x = 0, y = 0;
  ASSERT_NO_FATAL_FAILURE(start_blocker({joule::inout(y)}));
  joule::spawn({joule::out(x)}, [&x] {
    spin_for(microseconds(500));
    x = 11;
  });
  joule::taskwait_on({joule::in(x)});
  const bool blocker_still_running = !finished_.load();
  const long seen = x;
  release_.store(true);
  joule::taskwait();
  EXPECT_TRUE(blocker_still_running);
  EXPECT_TRUE(released_in_time_.load()) << "taskwait_on waited for an unrelated task";
  EXPECT_EQ(seen, 11);
}

// taskwait_on with `in` waits for writers only, not for earlier readers.
TEST_P(Taskwait, OnInDoesNotWaitForReaders) {
  if (workers() < 2) GTEST_SKIP() << "needs a second worker to hold the long task";
  long x = 3;
  ASSERT_NO_FATAL_FAILURE(start_blocker({joule::in(x)}));
  joule::taskwait_on({joule::in(x)});
  const bool reader_still_running = !finished_.load();
  release_.store(true);
  joule::taskwait();
  EXPECT_TRUE(reader_still_running);
  EXPECT_TRUE(released_in_time_.load());
}

// taskwait_on with `out` waits for earlier readers too.
TEST_P(Taskwait, OnOutWaitsForReaders) {
  long x = 3;
  std::atomic<int> readers{0};
  for (int i = 0; i < 8; ++i)
    joule::spawn({joule::in(x)}, [&] {
      spin_for(microseconds(200));
      readers.fetch_add(1);
    });
  joule::taskwait_on({joule::out(x)});
  EXPECT_EQ(readers.load(), 8);
  joule::taskwait();
}

// A partially overlapping writer is waited for; the wait covers descendants.
TEST_P(Taskwait, OnPartialOverlapAndDescendants) {
  int a[32] = {};
  joule::spawn({joule::out(a + 8, 16)}, [&a] {
    joule::spawn({joule::out(a + 8, 16)}, [&a] {
      spin_for(microseconds(500));
      for (int i = 8; i < 24; ++i) a[i] = 1;
    });
  });
  joule::taskwait_on({joule::in(a + 20, 8)});
  int sum = 0;
  for (int i = 20; i < 28; ++i) sum += a[i];
  EXPECT_EQ(sum, 4);
  joule::taskwait();
}

// taskwait_on inside a task waits for that task's own children.
TEST_P(Taskwait, OnInsideTask) {
  long x = 0;
  long seen = -1;
  joule::spawn({joule::inout(x)}, [&] {
    joule::spawn({joule::out(x)}, [&x] {
      spin_for(microseconds(300));
      x = 9;
    });
    joule::taskwait_on({joule::in(x)});
    seen = x;
  });
  joule::taskwait();
  EXPECT_EQ(seen, 9);
}

// taskwait_on on data nobody touches returns at once.
TEST_P(Taskwait, OnUntouchedData) {
  long x = 0, z = 0;
  joule::spawn({joule::inout(x)}, [&x] { ++x; });
  joule::taskwait_on({joule::inout(z)});
  joule::taskwait();
  EXPECT_EQ(x, 1);
}

// Threads that are not workers may spawn and taskwait; each waits for its
// own children.
TEST_P(Taskwait, ForeignThreadsSpawnAndWait) {
  constexpr int threads = 3;
  std::vector<long> results(threads, 0);
  std::vector<int> ids(threads, 0);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      ids[t] = joule::worker_id();
      long x = 0;
      for (int i = 0; i < 200; ++i) joule::spawn({joule::inout(x)}, [&x] { ++x; });
      joule::taskwait();
      results[t] = x;
    });
  }
  long mine = 0;
  for (int i = 0; i < 200; ++i) joule::spawn({joule::inout(mine)}, [&mine] { ++mine; });
  joule::taskwait();
  for (auto& th : pool) th.join();
  EXPECT_EQ(mine, 200);
  for (int t = 0; t < threads; ++t) {
    EXPECT_EQ(results[t], 200) << t;
    EXPECT_EQ(ids[t], -1) << "a foreign thread is not a worker";
  }
}

// Many short rounds of the case above: the only worker (this thread, with
// one worker) often finishes its own wait while it holds a foreign chain's
// next task and one foreign thread's wait has just ended. The push of that
// task must reach a thread that still waits for it, or the round hangs
// (docs/internals-sleep-wake-checks.md).
TEST_P(Taskwait, ForeignThreadsRoundsOfShortChains) {
  constexpr int threads = 4, rounds = 60, chain = 16;
  for (int r = 0; r < rounds; ++r) {
    std::vector<long> results(threads, 0);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        long x = 0;
        for (int i = 0; i < chain + t; ++i) joule::spawn({joule::inout(x)}, [&x] { ++x; });
        joule::taskwait();
        results[t] = x;
      });
    }
    long mine = 0;
    for (int i = 0; i < chain / 2; ++i) joule::spawn({joule::inout(mine)}, [&mine] { ++mine; });
    joule::taskwait();
    for (auto& th : pool) th.join();
    ASSERT_EQ(mine, chain / 2) << "round " << r;
    for (int t = 0; t < threads; ++t)
      ASSERT_EQ(results[t], chain + t) << "round " << r << ", thread " << t;
  }
}

INSTANTIATE_TEST_SUITE_P(Sweep, Taskwait, testing::ValuesIn(scheduler_sweep()), config_namer{});

}  // namespace
