// Runtime lifetime: explicit start/stop (C++ and C), start on first use, one
// runtime at a time, restart with other settings, and stop waiting for every
// task still in flight.
#include "test_support.hpp"

#include <joule/joule.h>
#include <joule/joule.hpp>

#include <gtest/gtest.h>

#include <sched.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

namespace {

using namespace joule_test;

TEST(Lifecycle, RestartWithDifferentWorkerCounts) {
  for (int round = 0; round < 3; ++round) {
    for (int w : {1, 2, 4, 3}) {
      joule::runtime rt({{"JOULE_WORKERS", std::to_string(w)}});
      EXPECT_EQ(joule::num_workers(), w);
      std::atomic<int> n{0};
      for (int i = 0; i < 50; ++i) joule::spawn([&] { n.fetch_add(1); });
      joule::taskwait();
      EXPECT_EQ(n.load(), 50);
    }
  }
}

TEST(Lifecycle, ManyQuickRestarts) {
  for (int i = 0; i < 30; ++i) {
    joule::runtime rt({{"JOULE_WORKERS", i % 2 ? "2" : "4"}, {"JOULE_SPIN_US", "0"}});
    long x = 0;
    joule::spawn({joule::inout(x)}, [&x] { ++x; });
    joule::taskwait();
    EXPECT_EQ(x, 1);
  }
}

// Stopping waits for tasks (and their children) that nobody waited for.
TEST(Lifecycle, StopWaitsForPendingTasks) {
  std::atomic<int> done{0};
  {
    joule::runtime rt({{"JOULE_WORKERS", "2"}});
    for (int i = 0; i < 20; ++i)
      joule::spawn([&done] {
        joule::spawn([&done] {
          spin_for(std::chrono::microseconds(200));
          done.fetch_add(1);
        });
        spin_for(std::chrono::microseconds(100));
        done.fetch_add(1);
      });
  }
  EXPECT_EQ(done.load(), 40);
}

TEST(Lifecycle, SecondRuntimeWhileRunningIsStateError) {
  joule::runtime rt({{"JOULE_WORKERS", "2"}});
  try {
    joule::runtime second;
    ADD_FAILURE() << "two runtimes at once";
  } catch (const joule::error& e) {
    EXPECT_EQ(e.code(), JOULE_ERR_STATE);
  }
  std::atomic<int> n{0};
  joule::spawn([&] { n.fetch_add(1); });
  joule::taskwait();
  EXPECT_EQ(n.load(), 1);
}

TEST(Lifecycle, CInitFinalize) {
  ASSERT_EQ(joule_init(), JOULE_OK);
  EXPECT_EQ(joule_init(), JOULE_ERR_STATE);
  EXPECT_NE(joule_last_error(), nullptr);
  const char* keys[] = {"JOULE_WORKERS"};
  const char* values[] = {"2"};
  EXPECT_EQ(joule_init_with(keys, values, 1), JOULE_ERR_STATE);
  try {
    joule::runtime rt;
    ADD_FAILURE() << "a C++ runtime started beside a C one";
  } catch (const joule::error& e) {
    EXPECT_EQ(e.code(), JOULE_ERR_STATE);
  }
  EXPECT_EQ(joule_finalize(), JOULE_OK);
  ASSERT_EQ(joule_init_with(keys, values, 1), JOULE_OK);
  EXPECT_EQ(joule_num_workers(), 2);
  EXPECT_EQ(joule_finalize(), JOULE_OK);
}

// With no explicit start, the first call starts the runtime; finalize stops
// it and a new runtime can follow.
TEST(Lifecycle, StartsOnFirstUse) {
  std::atomic<int> n{0};
  joule::spawn([&] { n.fetch_add(1); });
  joule::taskwait();
  EXPECT_EQ(n.load(), 1);
  EXPECT_GE(joule::num_workers(), 1);
  EXPECT_EQ(joule::worker_id(), 0);
  EXPECT_EQ(joule_finalize(), JOULE_OK);
  joule::runtime rt({{"JOULE_WORKERS", "3"}});
  EXPECT_EQ(joule::num_workers(), 3);
}

cpu_set_t thread_affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  return set;
}

// The starting thread becomes worker 0 and may be pinned while the runtime
// runs, but gets its own CPU mask back when the runtime stops ("the machine
// is left as found"); otherwise threads it creates later inherit one CPU.
TEST(Lifecycle, StartingThreadAffinityRestored) {
  std::thread([] {
    const cpu_set_t before = thread_affinity();
    {
      joule::runtime rt({{"JOULE_WORKERS", "2"}, {"JOULE_BIND", "1"}});
      joule::spawn([] {});
      joule::taskwait();
    }
    const cpu_set_t after = thread_affinity();
    EXPECT_TRUE(CPU_EQUAL(&before, &after))
        << "CPUs before: " << CPU_COUNT(&before) << ", after: " << CPU_COUNT(&after);
  }).join();
}

// The thread that starts the runtime is worker 0, even if it is not main.
TEST(Lifecycle, StartingThreadIsWorkerZero) {
  int id_inside = -2, workers = 0;
  std::thread([&] {
    joule::runtime rt({{"JOULE_WORKERS", "2"}});
    id_inside = joule::worker_id();
    workers = joule::num_workers();
  }).join();
  EXPECT_EQ(id_inside, 0);
  EXPECT_EQ(workers, 2);
}

}  // namespace
