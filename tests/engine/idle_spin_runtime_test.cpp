// An idle worker learns to spin through short, regular gaps instead of
// sleeping at each one (AdaptiveSpin), and keeps sleeping when told to
// (JOULE_SPIN_MAX_US=0) or when an observer wants idle cores asleep.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>

#include "joule/joule.hpp"
#include "observer.hpp"

namespace joule::engine {

using namespace joule::core;
namespace {

std::atomic<int> g_sleeps{0};
std::atomic<int> g_other_tasks{0};
std::atomic<bool> g_wants_asleep{false};

class SleepCounter final : public Observer {
 public:
  const char* name() const override { return "sleep-counter"; }
  void on_idle(int worker, bool sleeping, std::uint64_t) override {
    if (worker > 0 && sleeping) ++g_sleeps;
  }
  void on_task_start(const Task&, int worker, std::uint64_t) override {
    if (worker > 0) ++g_other_tasks;
  }
  bool wants_idle_cores_asleep() const override { return g_wants_asleep.load(); }
};

std::unique_ptr<Observer> make_counter(const Config&) { return std::make_unique<SleepCounter>(); }

void busy_us(int us) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (std::chrono::steady_clock::now() < end) {
  }
}

struct Idle {
  int sleeps;       // times the other worker went to sleep
  int other_tasks;  // tasks the other worker ran
};

// 200 iterations: one short task for the other worker, then 400 us of serial
// work on the main thread, so the other worker idles ~400 us per iteration.
// (When the other worker misses a task, the main thread runs it at taskwait.)
Idle idle_over_iterations(const std::string& spin_max) {
  g_sleeps = 0;
  g_other_tasks = 0;
  register_observer_factory(make_counter);
  {
    joule::runtime rt({{"JOULE_WORKERS", "2"},
                       {"JOULE_SPIN_US", "100"},
                       {"JOULE_SPIN_MAX_US", spin_max},
                       {"JOULE_LENDING", "off"}});
    for (int i = 0; i < 200; ++i) {
      joule::spawn([] { busy_us(20); });
      busy_us(400);
      joule::taskwait();
    }
  }
  unregister_observer_factory(make_counter);
  return {g_sleeps.load(), g_other_tasks.load()};
}

// Ratios, not counts: how many tasks reach the other worker depends on how
// the machine schedules it, but a worker that sleeps in every gap sleeps
// before nearly every task it gets, and one that spins through them does not.
TEST(IdleSpin, ShortRegularGapsAreSpunThroughNotSlept) {
  const Idle fixed = idle_over_iterations("0");
  const Idle adaptive = idle_over_iterations("5000");
  ASSERT_GE(fixed.other_tasks, 20);
  ASSERT_GE(adaptive.other_tasks, 20);
  EXPECT_GT(fixed.sleeps, fixed.other_tasks / 2)
      << fixed.sleeps << " sleeps, " << fixed.other_tasks << " tasks";
  EXPECT_LT(adaptive.sleeps, adaptive.other_tasks / 2)
      << adaptive.sleeps << " sleeps, " << adaptive.other_tasks << " tasks";
}

TEST(IdleSpin, AnObserverThatWantsIdleCoresAsleepKeepsTheSpinFixed) {
  g_wants_asleep = true;
  const Idle asleep = idle_over_iterations("5000");
  g_wants_asleep = false;
  ASSERT_GE(asleep.other_tasks, 20);
  EXPECT_GT(asleep.sleeps, asleep.other_tasks / 2)
      << asleep.sleeps << " sleeps, " << asleep.other_tasks << " tasks";
}

}  // namespace
}  // namespace joule::engine
