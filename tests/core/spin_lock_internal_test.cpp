// The spin lock and its back-off (core/spin_lock.hpp, backoff.hpp): pauses
// for a bounded number of rounds, then yields; and a count kept exact by the
// lock with eight times more threads than CPUs, where a preempted holder
// must get its CPU back from the waiters.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <thread>
#include <vector>

#include "backoff.hpp"
#include "spin_lock.hpp"

namespace joule::core {
namespace {

TEST(Backoff, PausesForItsRoundsThenYields) {
  Backoff b(3);
  EXPECT_FALSE(b.yielding());
  EXPECT_FALSE(b.pause());
  EXPECT_FALSE(b.pause());
  EXPECT_FALSE(b.pause());
  EXPECT_TRUE(b.yielding());
  EXPECT_TRUE(b.pause());
  EXPECT_TRUE(b.pause());
}

TEST(Backoff, ZeroRoundsYieldsAtOnce) {
  Backoff b(0);
  EXPECT_TRUE(b.yielding());
  EXPECT_TRUE(b.pause());
}

TEST(Backoff, DefaultRoundsAreBounded) {
  Backoff b;
  int paused = 0;
  while (!b.pause()) ++paused;
  EXPECT_EQ(paused, Backoff::kSpinRounds);
}

TEST(SpinLock, TryLockFailsWhileHeld) {
  SpinLock l;
  EXPECT_TRUE(l.try_lock());
  EXPECT_FALSE(l.try_lock());
  l.unlock();
  l.lock();
  EXPECT_FALSE(l.try_lock());
  l.unlock();
}

// The first `n` CPUs of the process mask (fewer if it has fewer).
cpu_set_t first_cpus(int n) {
  cpu_set_t mask, out;
  CPU_ZERO(&out);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE && CPU_COUNT(&out) < n; ++c)
    if (CPU_ISSET(c, &mask)) CPU_SET(c, &out);
  return out;
}

TEST(SpinLock, SixteenThreadsOnTwoCpusCountExactly) {
  constexpr int kThreads = 16, kRounds = 50000;
  const cpu_set_t cpus = first_cpus(2);
  SpinLock lock;
  long count = 0;        // guarded by lock
  int inside = 0;        // guarded by lock: never above 1
  bool overlap = false;  // guarded by lock
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&] {
      // Unpinned if the mask cannot be set (a restricted container): still a race.
      pthread_setaffinity_np(pthread_self(), sizeof cpus, &cpus);
      while (!go.load()) std::this_thread::yield();
      for (int i = 0; i < kRounds; ++i) {
        lock.lock();
        overlap = overlap || ++inside != 1;
        // A little work while holding it, so that holders get preempted.
        for (int k = 0; k < 8; ++k) cpu_relax();
        ++count;
        --inside;
        lock.unlock();
      }
    });
  go.store(true);
  for (auto& t : threads) t.join();
  EXPECT_EQ(count, long(kThreads) * kRounds);
  EXPECT_FALSE(overlap);
}

}  // namespace
}  // namespace joule::core
