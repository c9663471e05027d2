// queue-depth and templb: rules, hysteresis, the switch-cost gate, the
// temperature band and the refine tolerance, and queue-depth's safety
// property on random observations.
#include <gtest/gtest.h>

#include <random>

#include "test_obs.hpp"

namespace joule::energy::test {
namespace {

Observation idle_pair(double work0, double work1) {
  auto obs = make_obs({work0, work1});
  obs.window_s = 0.02;
  obs.switch_cost_s = 10e-6;
  return obs;
}

TEST(QueueDepth, SlowsSlackOnlyAfterTwoWindows) {
  auto p = make_energy_policy("queue-depth", Options{});
  EXPECT_EQ(p->trigger(), Trigger::periodic);
  // Core 0 is 50 % busy, core 1 idle; neither has ready work.
  auto obs = idle_pair(0.01, 0.0);
  EXPECT_EQ(p->decide(obs).kind, Decision::Kind::none);  // hysteresis: one window is not enough
  const auto d = p->decide(obs);
  ASSERT_EQ(d.kind, Decision::Kind::dvfs);
  // 0.01 * 2.4 / f <= 0.02 * 0.99  =>  f >= 1.212 GHz -> 1.3
  EXPECT_DOUBLE_EQ(ghz_of(obs, d, 0), 1.3);
  EXPECT_DOUBLE_EQ(ghz_of(obs, d, 1), 1.2);
}

TEST(QueueDepth, RaisesAtOnceForCriticalAndQueuedWork) {
  auto p = make_energy_policy("queue-depth", Options{});
  auto obs = idle_pair(0.001, 0.001);
  for (auto& dom : obs.domains) dom.level = 0;
  obs.cores[0].running = obs.cores[0].running_critical = true;
  obs.cores[1].running = true;
  obs.cores[1].ready = 3;  // every other core busy: the queue waits
  const auto d = p->decide(obs);
  ASSERT_EQ(d.kind, Decision::Kind::dvfs);
  EXPECT_DOUBLE_EQ(ghz_of(obs, d, 0), 2.4);
  EXPECT_DOUBLE_EQ(ghz_of(obs, d, 1), 2.4);
}

TEST(QueueDepth, NoSwitchWhenTheWindowDoesNotPayTheCost) {
  auto p = make_energy_policy("queue-depth", Options{});
  auto obs = idle_pair(0.0, 0.0);
  obs.switch_cost_s = obs.window_s / 10;  // window < 20 x cost
  for (int i = 0; i < 5; ++i) EXPECT_EQ(p->decide(obs).kind, Decision::Kind::none);
}

TEST(QueueDepth, AlternatingWindowsDoNotFlipFlop) {
  auto p = make_energy_policy("queue-depth", Options{});
  auto busy = idle_pair(0.02, 0.02), idle = idle_pair(0.0, 0.0);
  int level = 12, changes = 0;
  for (int i = 0; i < 20; ++i) {
    auto obs = i % 2 ? idle : busy;
    for (auto& dom : obs.domains) dom.level = level;
    const auto d = p->decide(obs);
    if (!d.domain_level.empty() && d.domain_level[0] != level) ++changes, level = d.domain_level[0];
  }
  EXPECT_EQ(changes, 0);
}

// Never slows a core whose running task has waiting successors, nor one with
// ready tasks while every other core is busy.
TEST(QueueDepth, NeverSlowsCriticalOrQueuedCoresOnRandomObservations) {
  std::mt19937_64 rng(2024);
  std::uniform_real_distribution<double> u(0, 1);
  auto p = make_energy_policy("queue-depth", Options{});
  for (int iter = 0; iter < 5000; ++iter) {
    const int n = 1 + int(rng() % 8);
    auto obs = make_obs(std::vector<double>(std::size_t(n), 0.0), 1 + int(rng() % 3), rng() % 2);
    obs.window_s = 0.02;
    obs.switch_cost_s = rng() % 5 ? 20e-6 : 2e-3;
    for (auto& c : obs.cores) {
      c.work_s = c.busy_s = u(rng) * 0.02;
      c.running = rng() % 2;
      c.running_critical = c.running && rng() % 3 == 0;
      c.ready = rng() % 3 == 0 ? int(rng() % 4) : 0;
      c.parked = rng() % 10 == 0;
    }
    for (auto& dom : obs.domains) dom.level = int(rng() % dom.pstates.size());
    const bool gate_open = obs.window_s > 20 * obs.switch_cost_s;
    const auto d = p->decide(obs);
    for (int c = 0; c < n; ++c) {
      const auto& core = obs.cores[std::size_t(c)];
      bool others_busy = true;
      for (int j = 0; j < n; ++j)
        if (j != c && !obs.cores[std::size_t(j)].parked && !obs.cores[std::size_t(j)].running)
          others_busy = false;
      if (core.parked || !(core.running_critical || (core.ready > 0 && others_busy))) continue;
      const auto& dom = obs.domains[std::size_t(core.domain)];
      const int after =
          d.domain_level.empty() ? dom.level : d.domain_level[std::size_t(core.domain)];
      EXPECT_GE(after, dom.level) << "slowed a core that must stay fast";
      if (gate_open) {
        EXPECT_EQ(after, int(dom.pstates.size()) - 1);
      }
    }
  }
}

Options templb_opt() {
  Options o;
  o.t_max_c = 60;
  return o;
}

TEST(TempLb, StepsOneLevelAgainstTMaxWithABand) {
  auto p = make_energy_policy("templb", templb_opt());
  auto obs = make_obs({1, 1, 1, 1}, 2, true);
  for (auto& dom : obs.domains) dom.level = 6;
  obs.chips[0].temperature_c = 61;    // hot: down one
  obs.chips[1].temperature_c = 59.5;  // inside the band: hold
  auto d = p->decide(obs);
  EXPECT_EQ(d.domain_level, (std::vector<int>{5, 6}));
  obs.chips[0].temperature_c = NAN;   // unknown: hold
  obs.chips[1].temperature_c = 58.9;  // below T_max - band: up one
  d = p->decide(obs);
  EXPECT_EQ(d.domain_level, (std::vector<int>{6, 7}));
  obs.domains[0].level = 0;
  obs.chips[0].temperature_c = 90;
  EXPECT_EQ(p->decide(obs).domain_level[0], 0);  // clamped at fmin
}

TEST(TempLb, RefineToleranceBand) {
  auto p = make_energy_policy("templb", templb_opt());
  std::uint64_t key = 1;
  auto obs = make_obs({0, 0});
  add_keys(obs, 0, {0.51, 0.01}, key);  // 0.52 vs share 0.51: 2 % over, within 3 %
  add_keys(obs, 1, {0.5}, key);
  obs.chips[0].temperature_c = obs.chips[1].temperature_c = 59.5;
  EXPECT_EQ(p->decide(obs).kind, Decision::Kind::none);
  auto heavy = make_obs({0, 0});
  key = 1;
  add_keys(heavy, 0, {0.5, 0.05, 0.05}, key);  // 0.6 vs share 0.55: 9 % over
  add_keys(heavy, 1, {0.5}, key);
  heavy.chips[0].temperature_c = heavy.chips[1].temperature_c = 59.5;
  const auto d = p->decide(heavy);
  ASSERT_EQ(d.kind, Decision::Kind::balance);
  ASSERT_EQ(d.moves.size(), 1u);
  EXPECT_EQ(d.moves[0].second, 1);
}

TEST(TempLb, SharesFollowTheNewFrequencies) {
  Options o;  // T_max off: levels stay, refine in ticks only
  auto p = make_energy_policy("templb", o);
  auto obs = make_obs({0, 0});
  obs.domains[1].level = 0;  // core 1 at 1.2 GHz: its share is 1/3
  std::uint64_t key = 1;
  add_keys(obs, 0, std::vector<double>(30, 0.1), key);
  add_keys(obs, 1, std::vector<double>(30, 0.1), key);
  const auto d = p->decide(obs);
  double ticks0 = 3.0;
  for (const auto& [k, c] : d.moves) ticks0 += c == 0 ? 0.1 : -0.1;
  EXPECT_NEAR(ticks0, 4.0, 0.1 + 1e-9);  // 2/3 of 6.0
}

}  // namespace
}  // namespace joule::energy::test
