// The shapes whose wake-ups matter, for the schedule-perturbation sweep
// (perturb_runs.sh, docs/internals-sleep-wake-checks.md):
// bursts from one creator into sleeping workers, dependency chains,
// nested taskwaits, undeferred tasks waiting for a predecessor, OpenMP team
// spawns with barriers (libjoule-omp) and taskloops. Each case checks its
// result; a lost wake-up shows as a hang, which the sweep's per-run timeout
// turns into a failure naming the seed. The sweep runs this binary on the
// perturbation variant of libjoule with JOULE_SPIN_US=0, so that every idle
// moment ends in a sleep that someone must wake.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "joule/joule.hpp"

extern "C" {
void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags);
void GOMP_barrier(void);
int omp_get_num_threads(void);
}

namespace {

// Pauses of a few hundred microseconds let idle workers fall asleep
// between rounds, so that the next round must wake them.
void let_workers_sleep(int round) {
  if (round % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(300));
}

TEST(Perturb, BurstsIntoSleepingWorkers) {
  for (int round = 0; round < 30; ++round) {
    std::atomic<int> ran{0};
    const int n = 1 + round * 7 % 97;
    for (int i = 0; i < n; ++i) joule::spawn([&] { ran.fetch_add(1); });
    joule::taskwait();
    ASSERT_EQ(ran.load(), n) << "round " << round;
    let_workers_sleep(round);
  }
}

TEST(Perturb, DependencyChains) {
  constexpr int kChains = 4;
  constexpr int kLength = 60;
  for (int round = 0; round < 4; ++round) {
    std::vector<int> next(kChains, 0);
    std::atomic<int> out_of_order{0};
    for (int k = 0; k < kLength; ++k)
      for (int c = 0; c < kChains; ++c)
        joule::spawn({joule::inout(next[std::size_t(c)])}, [&next, &out_of_order, c, k] {
          if (next[std::size_t(c)] != k) out_of_order.fetch_add(1);
          next[std::size_t(c)] = k + 1;
        });
    joule::taskwait();
    EXPECT_EQ(out_of_order.load(), 0);
    for (int c = 0; c < kChains; ++c) EXPECT_EQ(next[std::size_t(c)], kLength);
    let_workers_sleep(0);
  }
}

long fib(int n) {
  if (n < 2) return n;
  long a = 0;
  long b = 0;
  joule::spawn([&a, n] { a = fib(n - 1); });
  b = fib(n - 2);
  joule::taskwait();
  return a + b;
}

TEST(Perturb, NestedTaskwaits) {
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(fib(13), 233);
    let_workers_sleep(0);
  }
}

// An undeferred task waits for its predecessor; the predecessor's
// completion must wake its creator.
TEST(Perturb, UndeferredWaitsForItsPredecessor) {
  joule::task_options undeferred;
  undeferred.if_ = false;
  for (int round = 0; round < 40; ++round) {
    int x = 0;
    joule::spawn({joule::out(x)}, [&x] {
      std::this_thread::yield();
      x = 1;
    });
    int seen = -1;
    joule::spawn(
        {joule::in(x)}, [&] { seen = x; }, undeferred);
    EXPECT_EQ(seen, 1) << "round " << round;
    joule::taskwait();
  }
}

struct Team {
  std::atomic<int> arrived{0};
  std::atomic<int> wrong{0};
  int size = 0;
};

void team_body(void* p) {
  Team& t = *static_cast<Team*>(p);
  for (int phase = 1; phase <= 3; ++phase) {
    t.arrived.fetch_add(1);
    GOMP_barrier();
    // Every member passed the barrier only after all had arrived.
    if (t.arrived.load() < phase * omp_get_num_threads()) t.wrong.fetch_add(1);
    GOMP_barrier();
  }
}

TEST(Perturb, TeamSpawnsWithBarriers) {
  for (int round = 0; round < 12; ++round) {
    Team t;
    GOMP_parallel(team_body, &t, 0, 0);
    EXPECT_EQ(t.wrong.load(), 0) << "round " << round;
    EXPECT_GT(t.arrived.load(), 0);
    let_workers_sleep(round);
  }
}

TEST(Perturb, Taskloops) {
  for (int round = 0; round < 10; ++round) {
    std::atomic<std::int64_t> sum{0};
    joule::taskloop(std::int64_t{0}, std::int64_t{2000}, std::int64_t{1 + round * 13},
                    [&](std::int64_t i) { sum.fetch_add(i); });
    EXPECT_EQ(sum.load(), 1999 * 2000 / 2);
    // A taskloop inside a task: its chunks are grandchildren of this thread.
    std::atomic<std::int64_t> inner{0};
    joule::spawn([&] {
      joule::taskloop(std::int64_t{0}, std::int64_t{300}, std::int64_t{7},
                      [&](std::int64_t i) { inner.fetch_add(i); });
    });
    joule::taskwait();
    EXPECT_EQ(inner.load(), 299 * 300 / 2);
    let_workers_sleep(round);
  }
}

}  // namespace
