// The time guard (scheduler/energy/time_guard.hpp): its state machine on
// hand-made units, and the closed loop around the real fg-energylb and
// queue-depth policies on a small deterministic plant (a 2:1 iterative
// load with and without noise bursts).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "energy_registry.hpp"
#include "test_obs.hpp"
#include "time_guard.hpp"

namespace joule::energy::test {
namespace {

std::vector<std::uint32_t> table() {
  std::vector<std::uint32_t> p;
  for (int k = 12; k <= 24; ++k) p.push_back(std::uint32_t(k) * 100000);
  return p;
}

// A 2-core iterative plant: core 0 works `heavy`, core 1 `light` ms per
// iteration at fmax; a slowed core takes work x fmax / f; noise adds a
// burst to a core with probability `p` per iteration.
struct Plant {
  double heavy = 2e-3, light = 1e-3;
  double p = 0, burst = 0;
  std::mt19937 rng{7};
  std::uint64_t iteration = 0;
  double joules = 0;  // docs/energy.md's model: busy P(f), 14.52 W asleep

  static double watts(double ghz) { return seed_cubic_watts(ghz); }

  // One iteration at `levels`: the Observation the controller would build.
  Observation step(const std::vector<int>& levels) {
    Observation obs = make_obs({heavy, light}, 1, false, table());
    std::bernoulli_distribution hit(p);
    double t = 0;
    for (int c = 0; c < 2; ++c) {
      auto& dom = obs.domains[std::size_t(c)];
      dom.level = levels[std::size_t(c)];
      const double f = dom.pstates[std::size_t(dom.level)], fmax = dom.fmax();
      auto& core = obs.cores[std::size_t(c)];
      core.busy_s = core.work_s * fmax / f + (hit(rng) ? burst : 0);
      t = std::max(t, core.busy_s);
    }
    for (const auto& core : obs.cores) {
      const auto& dom = obs.domains[std::size_t(core.domain)];
      joules += core.busy_s * watts(dom.khz() / 1e6) + (t - core.busy_s) * 14.52;
    }
    obs.window_s = t;
    obs.iteration = ++iteration;
    return obs;
  }
};

struct LoopResult {
  double time = 0, base_time = 0, joules = 0, base_joules = 0;
  GuardStats stats;
  std::vector<int> last;
};

// `iterations` of the plant under fg-energylb, guarded or not; the same
// plant at fmax (same noise draws) gives the time to compare with.
LoopResult run_loop(Plant plant, int iterations, bool guarded, GuardOptions g = {}) {
  Options opt;
  auto policy = make_energy_policy("fg-energylb", opt);
  TimeGuard guard(g);
  guard.reset(false);
  Plant top = plant;
  LoopResult r;
  std::vector<int> levels{12, 12};
  for (int i = 0; i < iterations; ++i) {
    const Observation obs = plant.step(levels);
    r.time += obs.window_s;
    r.base_time += top.step({12, 12}).window_s;
    Decision d = policy->decide(obs);
    if (guarded) d = guard.filter(obs, std::move(d));
    if (d.domain_level.size() == 2) levels = d.domain_level;
  }
  r.stats = guard.stats();
  r.last = levels;
  r.joules = plant.joules, r.base_joules = top.joules;
  return r;
}

// Without slack reclamation (time_guard_slack_test.cpp has it): the
// baseline at the top, phase changes and probes as the guard runs them.
TEST(TimeGuard, TakesABaselineAtTheTopBeforeThePolicyMayLower) {
  GuardOptions g;
  g.slack = false;
  TimeGuard guard(g);
  guard.reset(false);
  Plant plant;
  std::vector<int> levels{12, 12};
  // The first call's window began before the guard did: it is not a unit.
  // The baseline is full at the next baseline_units calls; the last of them
  // lets the policy through.
  for (int i = 0; i < g.baseline_units; ++i) {
    Observation obs = plant.step(levels);
    Decision asked;
    asked.kind = Decision::Kind::dvfs;
    asked.domain_level = {12, 0};
    const Decision d = guard.filter(obs, asked);
    ASSERT_EQ(d.domain_level, (std::vector<int>{12, 12})) << "unit " << i;
    EXPECT_TRUE(guard.measuring_baseline());
  }
  Decision asked;
  asked.kind = Decision::Kind::dvfs;
  asked.domain_level = {12, 0};
  const Decision d = guard.filter(plant.step(levels), asked);
  EXPECT_FALSE(guard.measuring_baseline());
  EXPECT_EQ(guard.stats().rebases, 1u);
  EXPECT_NEAR(guard.stats().baseline_s, 2e-3, 1e-9);
  EXPECT_EQ(d.domain_level, (std::vector<int>{12, 0})) << "no noise: no margin";
}

// The light core's ideal saving per iteration (docs/energy.md, workload
// (a)): its 1 ms block over 2 ms at 1.2 GHz instead of 1 ms at 2.4 and 1 ms
// asleep.
double ideal_joules(int iterations) {
  return iterations * 1e-3 * (Plant::watts(2.4) + 14.52 - 2 * Plant::watts(1.2));
}

TEST(TimeGuard, QuietTwoToOneKeepsThePolicysSaving) {
  const LoopResult r = run_loop(Plant{}, 400, true);
  EXPECT_EQ(r.stats.trips, 0u);
  EXPECT_EQ(r.stats.held, 0u) << "no noise, no trip: nothing to raise";
  EXPECT_GE((r.base_joules - r.joules) / ideal_joules(400), 0.9) << "baseline units aside";
  EXPECT_EQ(r.last, (std::vector<int>{12, 0})) << "the light core at fmax/2";
  EXPECT_LE(r.time / r.base_time, 1.0 + 1e-9);
}

TEST(TimeGuard, NoiseOnTheSlowedCoreTripsAndTheLossComesBackWithinBudget) {
  Plant noisy;
  noisy.p = 0.2, noisy.burst = 0.6e-3;  // 20 % of iterations lose 0.6 ms on a core
  const LoopResult open = run_loop(noisy, 2000, false);
  const LoopResult closed = run_loop(noisy, 2000, true);
  EXPECT_GT(open.time / open.base_time, 1.03) << "the plant must hurt without the guard";
  EXPECT_GE(closed.stats.trips, 1u);
  EXPECT_LE(closed.time / closed.base_time, 1.02);
  EXPECT_GT(closed.stats.max_margin, 0.0);
  EXPECT_GE((closed.base_joules - closed.joules) / ideal_joules(2000), 0.5)
      << "at least half the quiet ideal";
}

TEST(TimeGuard, ATripRaisesSlowedDomainsHalfwayAndHoldsThem) {
  GuardOptions g;
  g.baseline_units = 2, g.loss_units = 2, g.hold_units = 3, g.noise_units = 1000;
  TimeGuard guard(g);
  guard.reset(false);
  Plant plant;
  Decision asked;
  asked.domain_level = {12, 0};
  std::vector<int> levels{12, 12};
  for (int i = 0; i < 3; ++i)
    levels = guard.filter(plant.step(levels), asked).domain_level;  // baseline, then {12, 0}
  ASSERT_EQ(levels, (std::vector<int>{12, 0}));
  plant.light = 1.9e-3;  // the slowed core is now late, whatever margin the noise gives
  Decision d;
  for (int i = 0; i < 2 && guard.last_action() != GuardAction::tripped; ++i)
    d = guard.filter(plant.step(levels), asked), levels = d.domain_level;
  ASSERT_EQ(guard.last_action(), GuardAction::tripped);
  EXPECT_EQ(guard.stats().trips, 1u);
  EXPECT_GE(d.domain_level[1], 6) << "halfway from 0 to 12, then the margin";
  EXPECT_NE(d.why.find("time guard"), std::string::npos);
  plant.light = 1e-3;  // the disturbance is over; the policy still asks for fmin
  for (int i = 0; i < 2; ++i) {
    d = guard.filter(plant.step(d.domain_level), asked);
    EXPECT_GE(d.domain_level[1], 6) << "held";
  }
  // Then eased down one P-state per unit until the policy's level is back.
  int units = 0, level = d.domain_level[1];
  while (guard.last_action() != GuardAction::released && units++ < 20) {
    d = guard.filter(plant.step(d.domain_level), asked);
    EXPECT_GE(d.domain_level[1], level - 1) << "one P-state per unit";
    level = d.domain_level[1];
  }
  EXPECT_EQ(guard.last_action(), GuardAction::released);
}

TEST(TimeGuard, ALossWithNothingSlowedTakesANewBaselineInsteadOfTripping) {
  GuardOptions g;
  g.baseline_units = 2, g.loss_units = 2;
  TimeGuard guard(g);
  guard.reset(false);
  Plant plant;
  Decision keep;  // the policy leaves every domain at the top
  for (int i = 0; i < 3; ++i) guard.filter(plant.step({12, 12}), keep);
  ASSERT_EQ(guard.stats().rebases, 1u);
  plant.heavy = 2.2e-3 / 1.0;  // 10 % slower program; phase detection is 20 %
  bool rebased = false;
  for (int i = 0; i < 6; ++i) {
    const Decision d = guard.filter(plant.step({12, 12}), keep);
    EXPECT_TRUE(d.domain_level.empty()) << "nothing to change: levels at the top";
    rebased |= guard.last_action() == GuardAction::rebasing;
  }
  EXPECT_TRUE(rebased);
  EXPECT_EQ(guard.stats().trips, 0u);
  EXPECT_NEAR(guard.stats().baseline_s, 2.2e-3, 1e-9);
}

TEST(TimeGuard, APhaseChangeTakesANewBaseline) {
  GuardOptions g;
  g.slack = false;
  g.baseline_units = 2;
  TimeGuard guard(g);
  guard.reset(false);
  Plant plant;
  Decision asked;
  asked.domain_level = {12, 0};
  std::vector<int> levels{12, 12};
  for (int i = 0; i < 3 + g.phase_units; ++i)  // the first call, the baseline, a phase's units
    levels = guard.filter(plant.step(levels), asked).domain_level;
  plant.heavy = 4e-3, plant.light = 2e-3;  // twice the work per iteration
  int units = 0;
  while (guard.stats().phase_rebases == 0 && units < g.phase_units)
    levels = guard.filter(plant.step(levels), asked).domain_level, ++units;
  EXPECT_EQ(units, g.phase_units / 2 + 1) << "the median of phase_units units moved";
  EXPECT_EQ(guard.stats().phase_rebases, 1u);
  EXPECT_TRUE(guard.measuring_baseline());
  EXPECT_EQ(levels, (std::vector<int>{12, 12}));
}

TEST(TimeGuard, ProbesTheTopEveryProbeUnits) {
  GuardOptions g;
  g.slack = false;
  g.baseline_units = 2, g.probe_units = 10;
  TimeGuard guard(g);
  guard.reset(false);
  Plant plant;
  Decision asked;
  asked.domain_level = {12, 0};
  std::vector<int> levels{12, 12};
  int at_top = 0;
  for (int i = 0; i < 102; ++i) {
    levels = guard.filter(plant.step(levels), asked).domain_level;
    at_top += levels[1] == 12;
  }
  EXPECT_EQ(guard.stats().rebases, 1u);
  // The first call (no unit) and the baseline's first at the top; its last
  // lets the policy through. Then every 10 policy units are followed by a
  // probe: 99 units make 9.
  EXPECT_EQ(guard.stats().probes, 9u);
  EXPECT_EQ(at_top, 2 + 9);
  EXPECT_EQ(guard.stats().held, 0u) << "probes are not holds";
}

TEST(TimeGuard, NoiseWidensTheMargin) {
  GuardOptions g;
  g.baseline_units = 2;
  TimeGuard guard(g);
  guard.reset(false);
  Decision asked;
  asked.domain_level = {12, 0};
  Plant plant;
  std::vector<int> levels{12, 12};
  // Alternating unit costs: 2 ms and 2.4 ms at the top; the guard's q90 of
  // (cost / median - 1) is the 20 % spread.
  for (int i = 0; i < 40; ++i) {
    plant.heavy = i % 2 ? 2.4e-3 : 2e-3;
    levels = guard.filter(plant.step({12, 12}), asked).domain_level;
  }
  EXPECT_NEAR(guard.stats().noise, 0.2, 0.01);
  // The P-state nearest 1.2 GHz x 1.2 = 1.44 GHz: 1.4 GHz (level 2).
  EXPECT_EQ(levels[1], 2);
  EXPECT_GE(table()[std::size_t(levels[1])] + 50000, 1.2e6 * (1 + guard.stats().noise));
}

TEST(TimeGuard, PeriodicUnitsAreTimePerWorkAndIdleWindowsAreSkipped) {
  TimeGuard guard;
  guard.reset(true);
  Observation obs = make_obs({0.01, 0.005}, 1, false, table());
  obs.window_s = 0.02;
  Decision none;
  for (int i = 0; i < 1 + 8; ++i) guard.filter(obs, none);  // the first call is no unit
  EXPECT_FALSE(guard.measuring_baseline());
  EXPECT_NEAR(guard.stats().baseline_s, 0.02 / 0.015, 1e-9);
  Observation idle = make_obs({0.0, 0.0001}, 1, false, table());
  idle.window_s = 0.02;
  const auto units = guard.stats().units;
  guard.filter(idle, none);
  EXPECT_EQ(guard.stats().units, units) << "a window with almost no work says nothing";
}

// A program that nearly idles gives no unit to measure: the baseline does
// not hold every domain at the top for ever.
TEST(TimeGuard, AnIdleProgramDoesNotKeepTheBaselineForever) {
  GuardOptions g;
  TimeGuard guard(g);
  guard.reset(true);
  Observation idle = make_obs({0.0, 0.0001}, 1, false, table());
  idle.window_s = 0.02;
  Decision asked;
  asked.domain_level = {0, 0};
  std::vector<int> levels;
  for (int i = 0; i < 2 * g.baseline_units; ++i) levels = guard.filter(idle, asked).domain_level;
  EXPECT_FALSE(guard.measuring_baseline());
  EXPECT_EQ(levels, (std::vector<int>{0, 0})) << "the policy may lower an idle machine";
  EXPECT_EQ(guard.stats().rebases, 0u) << "no unit: no baseline taken";
}

TEST(TimeGuard, BalancedLoadsNeverChangeAFrequency) {
  Plant balanced;
  balanced.light = balanced.heavy;
  balanced.p = 0.3, balanced.burst = 1e-3;
  Options opt;
  auto policy = make_energy_policy("fg-energylb", opt);
  TimeGuard guard;
  guard.reset(false);
  std::vector<int> levels{12, 12};
  for (int i = 0; i < 300; ++i) {
    const Observation obs = balanced.step(levels);
    const Decision d = guard.filter(obs, policy->decide(obs));
    if (!d.domain_level.empty()) levels = d.domain_level;
    for (int l : levels) ASSERT_EQ(l, 12) << "iteration " << i;
  }
}

}  // namespace
}  // namespace joule::energy::test
