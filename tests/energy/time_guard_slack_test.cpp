// The time guard's slack reclamation (scheduler/energy/time_guard_slack.cpp,
// GuardOptions::slack): a policy that keeps the critical core at the top
// lowers from its first decision, the trust ends when a slowed core is late,
// and a periodic policy's cores off the critical path get no noise margin.
#include <gtest/gtest.h>

#include "test_obs.hpp"
#include "time_guard.hpp"

namespace joule::energy::test {
namespace {

// One iteration of a 2-core barrier code: core 0 works `heavy`, core 1
// `light` seconds at fmax, each slowed as work x fmax / f.
// `wait`: what a slowed light core adds to the iteration unseen by the
// paired lateness (the heavy core waiting inside its unit).
Observation iteration(const std::vector<int>& levels, double heavy, double light, std::uint64_t it,
                      double wait = 0) {
  Observation obs = make_obs({heavy, light});
  double t = 0;
  for (std::size_t c = 0; c < 2; ++c) {
    auto& dom = obs.domains[c];
    dom.level = levels[c];
    obs.cores[c].busy_s = obs.cores[c].work_s * double(dom.fmax()) / double(dom.khz());
    t = std::max(t, obs.cores[c].busy_s);
  }
  obs.window_s = t + (levels[1] < 12 ? wait : 0), obs.iteration = it;
  return obs;
}

Decision ask(std::vector<int> levels) {
  Decision d;
  d.kind = Decision::Kind::dvfs;
  d.domain_level = std::move(levels);
  return d;
}

// P-states: seed_pstates(), 1.2-2.4 GHz by 0.1 (levels 0-12).

// Returns the levels of each of `calls` decisions asking {12, 0}.
std::vector<std::vector<int>> run(TimeGuard& guard, double heavy, double light, int calls) {
  std::vector<std::vector<int>> out;
  std::vector<int> levels{12, 12};
  for (int i = 0; i < calls; ++i) {
    levels = guard.filter(iteration(levels, heavy, light, std::uint64_t(i + 1)), ask({12, 0}))
                 .domain_level;
    out.push_back(levels);
  }
  return out;
}

TEST(TimeGuardSlack, ThePolicyLowersAtOnceWhileTheHeavyCoreStaysAtTheTop) {
  GuardOptions g;
  TimeGuard guard(g);
  guard.reset(false);
  // 2 ms against 1 ms: at 1.2 GHz the light core finishes with the heavy.
  const auto levels = run(guard, 2e-3, 1e-3, g.baseline_units + 2);
  for (const auto& l : levels) EXPECT_EQ(l, (std::vector<int>{12, 0}));
  EXPECT_FALSE(guard.measuring_baseline());
  EXPECT_EQ(guard.stats().rebases, 1u) << "the slowed units made the baseline";
  EXPECT_NEAR(guard.stats().baseline_s, 2e-3, 1e-9);
  EXPECT_EQ(guard.stats().held, 0u);
}

TEST(TimeGuardSlack, WithoutSlackTheBaselineWaitsAtTheTop) {
  GuardOptions g;
  g.slack = false;
  TimeGuard guard(g);
  guard.reset(false);
  const auto levels = run(guard, 2e-3, 1e-3, g.baseline_units + 2);
  for (int i = 0; i < g.baseline_units; ++i)
    EXPECT_EQ(levels[std::size_t(i)], (std::vector<int>{12, 12})) << i;
  EXPECT_EQ(levels.back(), (std::vector<int>{12, 0}));
}

// The light core slowed to 1.2 GHz takes 3.6 ms against the heavy's 2 ms:
// it became the critical path, so the rest of the baseline is at the top.
TEST(TimeGuardSlack, ASlowedCoreThatTurnsLateEndsTheTrust) {
  GuardOptions g;
  TimeGuard guard(g);
  guard.reset(false);
  const auto levels = run(guard, 2e-3, 1.8e-3, g.baseline_units + 3);
  EXPECT_EQ(levels[0], (std::vector<int>{12, 0})) << "the first decision is the policy's";
  for (std::size_t i = 1; i <= std::size_t(g.baseline_units); ++i)
    EXPECT_EQ(levels[i], (std::vector<int>{12, 12})) << i;
  EXPECT_EQ(guard.stats().rebases, 1u);
  EXPECT_NEAR(guard.stats().baseline_s, 2e-3, 1e-9) << "the late unit is not in the baseline";
}

// The slowing costs 10 % where the paired lateness does not look: the
// trusted units enter the baseline, the unpaired loss trips against the
// probes, and once the probes have made a baseline of their own the trusted
// units leave it.
TEST(TimeGuardSlack, ProbesReplaceTheTrustedUnitsAndCatchAHiddenLoss) {
  GuardOptions g;
  g.probe_units = 4;
  TimeGuard guard(g);
  guard.reset(false);
  std::vector<int> levels{12, 12};
  for (int i = 0; i < 100; ++i)
    levels = guard.filter(iteration(levels, 2e-3, 1e-3, std::uint64_t(i + 1), 0.2e-3), ask({12, 0}))
                 .domain_level;
  EXPECT_NEAR(guard.stats().baseline_s, 2e-3, 1e-9) << "only units at the top are left";
  EXPECT_GE(guard.stats().probes, std::uint64_t(g.baseline_units));
  EXPECT_GE(guard.stats().trips, 1u);
}

TEST(TimeGuardSlack, NoDomainAtTheTopMeansNoTrust) {
  TimeGuard guard;
  guard.reset(false);
  std::vector<int> levels{12, 12};
  for (int i = 0; i < 3; ++i)
    levels =
        guard.filter(iteration(levels, 1e-3, 1e-3, std::uint64_t(i + 1)), ask({6, 6})).domain_level;
  EXPECT_EQ(levels, (std::vector<int>{12, 12}));
}

// Periodic units whose cost alternates by 20 %: the noise quantile is 0.2.
// The side core (1) ran nothing others wait on: no margin; marked critical
// (a task with successors ran on it) it gets the margin.
TEST(TimeGuardSlack, PeriodicMarginOnlyOnTheCriticalPath) {
  for (const bool critical : {false, true}) {
    TimeGuard guard;
    guard.reset(true);
    std::vector<int> levels;
    for (int i = 0; i < 40; ++i) {
      Observation obs = make_obs({0.02, 0.01});
      obs.window_s = i % 2 ? 0.024 : 0.02;
      obs.cores[0].running_critical = true;
      obs.cores[1].running_critical = critical && i == 39;
      levels = guard.filter(obs, ask({12, 0})).domain_level;
    }
    EXPECT_NEAR(guard.stats().noise, 0.2, 0.01);
    EXPECT_EQ(levels[0], 12);
    EXPECT_EQ(levels[1], critical ? 2 : 0) << "1.2 GHz x 1.2 is nearest 1.4 GHz (level 2)";
  }
}

}  // namespace
}  // namespace joule::energy::test
