// Team spawns as libjoule-omp makes them (joule_team_submit): n - 1 member
// tasks spread over the other workers' queues, each blocking without running
// tasks until every member has started, while the spawning thread waits the
// same way. Idle workers sleep without a time limit, so a member left on the
// queue of a worker that took another member first, with the only free
// worker asleep, hangs the team forever: the ctest TIMEOUT is the failure.
// JOULE_SPIN_US=0 sends every idle worker to sleep at once, and the short
// pause between teams lets them fall asleep before the next spawn.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "joule/joule.hpp"
#include "joule/team.h"
#include "test_support.hpp"

namespace {

struct Gather {
  std::atomic<int> started{0};
  std::atomic<int> finished{0};
  int members = 0;
};

// Blocks like a member gathering its team (libjoule-omp's wait_gathered
// sleeps in short futex waits): it never runs another task, so its worker
// is taken until the whole team is in.
void wait_started(const Gather& g) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (int spin = 0; g.started.load(std::memory_order_acquire) < g.members; ++spin) {
    ASSERT_LT(std::chrono::steady_clock::now(), give_up) << "a member never started";
    if (spin > 64) std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

void busy(int n) {
  volatile int x = 0;
  for (int i = 0; i < n; ++i) x = x + i;
}

void member(void* args) {
  Gather& g = **static_cast<Gather**>(args);
  g.started.fetch_add(1, std::memory_order_acq_rel);
  wait_started(g);
  g.finished.fetch_add(1, std::memory_order_acq_rel);
}

void spawn_team(Gather& g) {
  joule_task_t* tasks[64];
  for (int i = 0; i < g.members; ++i) {
    void* args = nullptr;
    ASSERT_EQ(joule_task_create(member, sizeof(Gather*), nullptr, &tasks[i], &args), JOULE_OK);
    *static_cast<Gather**>(args) = &g;
  }
  ASSERT_EQ(joule_team_submit(tasks, g.members), JOULE_OK);
}

// Fewer under the sanitizers: 8 workers on 2 CPUs with every sleep a futex
// wait run several times slower there, beyond the timeout on a busy host.
constexpr int kTeams = joule_test::under_sanitizer() ? 2000 : 10000;

// Each worker count gets kTeams teams or this long, whichever ends first: on
// a loaded host 8 workers on 2 CPUs may take minutes for all of them, and a
// lost wake-up still hangs (the ctest timeout) within the first ones.
constexpr auto kBudget = std::chrono::seconds(12);

TEST(TeamSpawn, EveryMemberStartsWithIdleWorkersAsleep) {
  // More workers than this machine's CPUs included.
  for (int workers : {1, 2, 3, 4, 8}) {
    joule::runtime rt({{"JOULE_WORKERS", std::to_string(workers)},
                       {"JOULE_SPIN_US", "0"},
                       {"JOULE_LENDING", "off"}});
    const auto end = std::chrono::steady_clock::now() + kBudget;
    for (int team = 0; team < kTeams && (team < 100 || std::chrono::steady_clock::now() < end);
         ++team) {
      Gather g;
      g.members = workers - 1;
      spawn_team(g);
      wait_started(g);
      while (g.finished.load(std::memory_order_acquire) < g.members) std::this_thread::yield();
      // Some workers busy or looking for work at the next spawn (an awake
      // target), the others asleep.
      if (team % 3 == 0)
        for (int i = 0; i < 8; ++i) joule::spawn([] { busy(200); });
      if (team % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
    joule::taskwait();
  }
}

}  // namespace
