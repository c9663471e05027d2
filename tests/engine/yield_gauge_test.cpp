// The oversubscribed polls' yield gauge (runtime/engine/idle_spin.hpp): a
// yield that comes back late (another program took the CPU for its time
// slice) stops the yields for a window that doubles while they stay late,
// and one that comes back promptly resets it; while stopped, the polls look
// twice and give up without yielding.
#include <gtest/gtest.h>

#include "idle_spin.hpp"

namespace joule::engine {
namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kLate = YieldGauge::kLateNs;

TEST(YieldGauge, PromptYieldsKeepPaying) {
  YieldGauge g;
  EXPECT_TRUE(g.pays(0));
  for (std::int64_t t = 0; t < 100 * kMs; t += kMs) g.took(t, t + kLate - 1);
  EXPECT_TRUE(g.pays(100 * kMs));
}

TEST(YieldGauge, ALateYieldStopsTheYieldsForAWindowThatDoubles) {
  YieldGauge g;
  std::int64_t now = 5 * kMs;
  g.took(now - kLate, now);  // late: 10 ms without yields
  EXPECT_FALSE(g.pays(now));
  EXPECT_FALSE(g.pays(now + YieldGauge::kFirstWindowNs - 1));
  EXPECT_TRUE(g.pays(now + YieldGauge::kFirstWindowNs));
  std::int64_t window = YieldGauge::kFirstWindowNs;
  for (int round = 0; round < 12; ++round) {  // still late each time it tries
    now += window;
    g.took(now - 2 * kLate, now);
    window = std::min(2 * window, YieldGauge::kLongestWindowNs);
    EXPECT_FALSE(g.pays(now + window - 1)) << round;
    EXPECT_TRUE(g.pays(now + window)) << round;
  }
  EXPECT_EQ(window, YieldGauge::kLongestWindowNs);
}

TEST(YieldGauge, APromptYieldResetsTheWindow) {
  YieldGauge g;
  g.took(0, kLate);                    // 10 ms
  g.took(20 * kMs, 20 * kMs + kLate);  // 20 ms
  g.took(50 * kMs, 50 * kMs + 1000);   // prompt: back to 10 ms
  g.took(60 * kMs, 60 * kMs + kLate);
  EXPECT_FALSE(g.pays(60 * kMs + kLate + YieldGauge::kFirstWindowNs - 1));
  EXPECT_TRUE(g.pays(60 * kMs + kLate + YieldGauge::kFirstWindowNs));
}

// While the process's gauge says yields do not pay, an oversubscribed poll
// looks once, gives up and looks a last time: no yield in between.
TEST(YieldGauge, StoppedYieldsMakeThePollGiveUpAtOnce) {
  const std::int64_t now = steady_ns();
  yield_gauge().took(now - YieldGauge::kLongestWindowNs, now);  // very late
  int looks = 0;
  const bool progress =
      spin_until([&] { return ++looks > 100; }, std::chrono::steady_clock::now(), true);
  EXPECT_FALSE(progress);
  EXPECT_EQ(looks, 2);
  EXPECT_FALSE(yield_if_it_pays());  // the throttle's wait sleeps instead
}

}  // namespace
}  // namespace joule::engine
