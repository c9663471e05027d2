// The time guard's slack reclamation (policy.guard_slack, on by default;
// scheduler/energy/time_guard_slack.cpp) in joule-sim: EnergyLB's two-PE
// seed case with the guard on reaches the open loop's saving within 20
// decisions, and the slack graph (a chain beside short side tasks) keeps
// its saving at equal time, quiet and with noise. Every number comes from a
// run with a fixed seed; only bounds are fixed here.
#include <gtest/gtest.h>

#include <cmath>

#include "sim_test_util.hpp"

namespace joule::sim::test {
namespace {

constexpr const char* kSeed = "seed000-two-pe.toml";
constexpr const char* kGraph = "guard-noise-graph.toml";

double saving(const Pair& p) { return 1 - p.run.energy_j / p.base.energy_j; }

// The first decision from which every step runs the open loop's
// frequencies, probes at the top aside (both cores at fmax); -1: never.
int full_from(const RunResult& guarded, const RunResult& open, int period, double top_ghz) {
  int last_off = -1;
  for (std::size_t i = 0; i < guarded.steps.size(); ++i) {
    const double g = guarded.steps[i].mean_ghz, o = open.steps[i].mean_ghz;
    if (std::fabs(g - o) > 1e-9 && std::fabs(g - top_ghz) > 1e-9) last_off = int(i);
  }
  if (last_off + 1 >= int(guarded.steps.size())) return -1;
  return (last_off + 1 + period - 1) / period;
}

TEST(SimGuardSlack, SeedCaseReachesItsFullSavingWithin20Decisions) {
  const std::vector<std::string> guard{"policy.guard=true"};
  const Scenario s = scenario(kSeed, guard);
  const Pair open = with_baseline(scenario(kSeed));
  const Pair slack = with_baseline(s);
  const Pair old =
      with_baseline(scenario(kSeed, {"policy.guard=true", "policy.guard_slack=false"}));
  EXPECT_GE(saving(open), 0.10) << "the seed case has a saving to keep";
  EXPECT_GE(saving(slack), 0.95 * saving(open)) << slack.run.guard_summary;
  EXPECT_LE(slack.run.time_s / slack.base.time_s, 1.03);
  EXPECT_LT(saving(old), 0.5 * saving(open)) << "without slack the baseline at the top costs it";
  // 400 steps, a decision every 10: from which decision on the levels are the open loop's.
  const int period = s.policy.opt.period;
  const RunResult g =
      run_scenario(scenario(kSeed, {"policy.guard=true", "workload.steps=400"}), true);
  const RunResult o = run_scenario(scenario(kSeed, {"workload.steps=400"}), true);
  ASSERT_EQ(g.steps.size(), o.steps.size());
  const double top = s.platform.pstates_ghz.back();
  const int from = full_from(g, o, period, top);
  EXPECT_GE(from, 0);
  EXPECT_LE(from, 20);
  int probes = 0;
  for (const auto& st : g.steps) probes += std::fabs(st.mean_ghz - top) < 1e-9;
  EXPECT_LE(probes, period * (400 / period / 20 + 1)) << "a probe decision in 21 at most";
  const RunResult og = run_scenario(
      scenario(kSeed, {"policy.guard=true", "policy.guard_slack=false", "workload.steps=400"}),
      true);
  int old_top = 0;
  for (const auto& st : og.steps) old_top += std::fabs(st.mean_ghz - top) < 1e-9;
  EXPECT_GE(old_top, period * 8) << "the old start waits 8 units at the top";
  EXPECT_GT(old_top, probes);
}

// The slack graph (docs/energy.md's workload (b)): quiet, and with bursts
// on the side core, the chain core or both, three noise seeds each.
TEST(SimGuardSlack, SlackGraphSavesAtEqualTime) {
  const Pair quiet = with_baseline(scenario(kGraph, {"noise.distribution=none"}));
  EXPECT_GE(saving(quiet), 0.04) << quiet.run.guard_summary;
  EXPECT_LE(quiet.run.time_s / quiet.base.time_s, 1.03);
  const Pair open =
      with_baseline(scenario(kGraph, {"noise.distribution=none", "policy.guard=false"}));
  EXPECT_GE(saving(quiet), 0.9 * saving(open));
  for (const char* cores : {"noise.cores=1", "noise.cores=0", "noise.cores=0,1"})
    for (const char* seed : {"noise.seed=7", "noise.seed=8", "noise.seed=9"}) {
      const Pair p = with_baseline(scenario(kGraph, {cores, seed}));
      EXPECT_LE(p.run.time_s / p.base.time_s, 1.03) << cores << " " << seed;
      EXPECT_GE(saving(p), 0.02) << cores << " " << seed << ": " << p.run.guard_summary;
    }
}

// Same inputs, same run: the guard's start depends on no clock.
TEST(SimGuardSlack, Deterministic) {
  const Scenario s = scenario(kGraph);
  const RunResult a = run_scenario(s), b = run_scenario(s);
  EXPECT_EQ(a.energy_j, b.energy_j);
  EXPECT_EQ(a.guard_summary, b.guard_summary);
}

}  // namespace
}  // namespace joule::sim::test
