// The noise model (noise_model.hpp) and the time guard in joule-sim
// (policy.guard): the guard-noise scenarios against the saving the power
// model allows (docs/energy.md's "ideal" column), computed here from the
// scenario's own model. Every number comes from a run; only bounds are fixed.
#include <gtest/gtest.h>

#include <fstream>

#include "noise_model.hpp"
#include "sim_test_util.hpp"
#include "temp_dir.hpp"

namespace joule::sim::test {
namespace {

constexpr const char* k2to1 = "guard-noise-2to1.toml";
constexpr const char* kGraph = "guard-noise-graph.toml";

double watts(const Scenario& s, std::size_t level) {
  return s.platform.power.watts(s.platform.pstates_ghz[level], level);
}

// 2:1: the light core runs its block over the heavy core's two at fmin
// instead of one block at fmax and one block's time asleep.
double ideal_2to1_j(const Scenario& s) {
  const double top = watts(s, s.platform.pstates_ghz.size() - 1), low = watts(s, 0);
  return s.workload.steps * 0.002 * (top + s.platform.wait_power_w - 2 * low);
}

// A chain with side tasks of half its length: the side core runs each side
// task over a whole chain task at fmin instead of half of it at fmax.
double ideal_graph_j(const Scenario& s) {
  const double top = watts(s, s.platform.pstates_ghz.size() - 1), low = watts(s, 0);
  return s.workload.chain * s.workload.task_s * (top / 2 + s.platform.wait_power_w / 2 - low);
}

struct Row {
  double time_ratio = 0, share = 0;  // time / none, saving / ideal
  RunResult run;
};

Row measure(const Scenario& s, double ideal_j) {
  const auto p = with_baseline(s);
  return {p.run.time_s / p.base.time_s, (p.base.energy_j - p.run.energy_j) / ideal_j, p.run};
}

std::vector<double> draws(const NoiseSpec& spec, int core, int n) {
  NoiseModel m(spec, 2);
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.push_back(m.draw(core));
  return out;
}

TEST(SimNoise, SameSeedSameDelaysAndMeansMatch) {
  using D = NoiseSpec::Distribution;
  NoiseSpec spec;
  spec.distribution = D::bursts, spec.p = 0.3, spec.delay_us = 500, spec.seed = 11;
  spec.mean_us = 200, spec.max_us = 800;
  EXPECT_EQ(draws(spec, 0, 1000), draws(spec, 0, 1000));
  NoiseSpec other = spec;
  other.seed = 12;
  EXPECT_NE(draws(spec, 0, 1000), draws(other, 0, 1000));
  for (D d : {D::bursts, D::exponential, D::uniform}) {
    spec.distribution = d;
    const int n = 200000;
    double sum = 0;
    for (double x : draws(spec, 1, n)) sum += x;
    const NoiseModel m(spec, 2);
    EXPECT_NEAR(sum / n, m.mean_s(), 0.02 * m.mean_s()) << int(d);
  }
  spec.cores = {1};  // core 0 is quiet
  for (double x : draws(spec, 0, 100)) EXPECT_EQ(x, 0.0);
}

TEST(SimNoise, BadValuesNameTheKey) {
  auto e = error_of("[noise]\ndistribution = \"gaussian\"\n");
  EXPECT_TRUE(has(e, ".toml:2: noise.distribution: 'gaussian' is not one of none | bursts")) << e;
  e = error_of("[noise]\n\np = 1.5\n");
  EXPECT_TRUE(has(e, ".toml:3: noise.p:")) << e;
  EXPECT_TRUE(has(e, "allowed: probability 0..1")) << e;
  e = error_of("", {"noise.delay_us=-3"});
  EXPECT_TRUE(has(e, "--set noise.delay_us=-3: noise.delay_us:")) << e;
  e = error_of("[workload]\nloads = [1, 1]\n[noise]\ndistribution = \"bursts\"\n");
  EXPECT_TRUE(has(e, "noise.delay_us: distribution = bursts needs")) << e;
  e = error_of(
      "[workload]\nloads = [1, 1]\n[noise]\ndistribution = \"uniform\"\nmax_us = 5\ncores = [7]\n");
  EXPECT_TRUE(has(e, "noise.cores: core 7 does not exist")) << e;
  e = error_of("", {"policy.guard=maybe"});
  EXPECT_TRUE(has(e, "policy.guard: 'maybe' is not one of true | false")) << e;
}

// (b) Bursts on the slowed core: unguarded, fg-energylb pays them in full;
// the guard keeps the loss within budget + 1 point and half the ideal.
TEST(SimGuard, NoisyTwoToOne) {
  const auto off = measure(scenario(k2to1, {"policy.guard=false"}), 1);
  EXPECT_GT(off.time_ratio, 1.03);
  EXPECT_FALSE(off.run.guarded);
  const Scenario s = scenario(k2to1);
  const auto on = measure(s, ideal_2to1_j(s));
  EXPECT_TRUE(on.run.guarded);
  EXPECT_LE(on.time_ratio, 1.0 + s.policy.opt.time_budget + 0.01) << on.run.guard_summary;
  EXPECT_GE(on.share, 0.5) << on.run.guard_summary;
  EXPECT_GT(on.run.guard.trips, 0u);
  EXPECT_GT(on.run.noise_s, 0.0);
}

// (c) A quiet machine: the guard costs only its baselines at the top.
TEST(SimGuard, QuietTwoToOneKeepsTheSaving) {
  const Scenario s = scenario(k2to1, {"noise.distribution=none"});
  const auto on = measure(s, ideal_2to1_j(s));
  EXPECT_LE(on.time_ratio, 1.01);
  EXPECT_GE(on.share, 0.8) << on.run.guard_summary;
  EXPECT_EQ(on.run.guard.trips, 0u);
}

// (d) Balanced, quiet or noisy (noise is busy time, not work): nothing to
// slow, and the guard changes no frequency either.
TEST(SimGuard, BalancedChangesNothing) {
  for (const char* noise : {"none", "bursts"}) {
    const auto r = run_scenario(
        scenario(k2to1, {"workload.loads=0.002,0.002,0.002,0.002", "workload.objects=4",
                         std::string("noise.distribution=") + noise}));
    EXPECT_TRUE(r.guarded);
    EXPECT_EQ(r.dvfs_changes, 0) << noise;
  }
}

// (e) The graph: queue-depth's slack absorbs the bursts (the chain bounds
// the time); guarded it stays within budget and keeps the saving.
TEST(SimGuard, GraphWithSlack) {
  const Scenario quiet = scenario(kGraph, {"noise.distribution=none"});
  const auto q = measure(quiet, ideal_graph_j(quiet));
  EXPECT_LE(q.time_ratio, 1.01);
  EXPECT_GE(q.share, 0.8) << q.run.guard_summary;
  const Scenario s = scenario(kGraph);
  const auto on = measure(s, ideal_graph_j(s));
  EXPECT_TRUE(on.run.guard_summary.find("per second of work") != std::string::npos);
  EXPECT_LE(on.time_ratio, 1.0 + s.policy.opt.time_budget + 0.01);
  EXPECT_GE(on.share, 0.5) << on.run.guard_summary;
  EXPECT_GT(on.run.noise_s, 0.0);
}

TEST(SimGuard, CommandLineShowsTheGuard) {
  const std::string file = std::string(JOULE_SIM_SCENARIOS) + "/" + k2to1;
  int status = 0;
  const auto run = run_tool("run " + file, &status);
  EXPECT_EQ(status, 0);
  EXPECT_TRUE(has(run, "\nguard: trips=")) << run;
  EXPECT_FALSE(has(run_tool("run " + file + " --set policy.guard=false"), "guard:"));
  const auto cmp = run_tool("compare " + file + " --policies none,fg-energylb --guard both");
  EXPECT_TRUE(has(cmp, "fg-energylb-guard")) << cmp;
  EXPECT_TRUE(has(cmp, "fg-energylb+guard guard: trips=")) << cmp;
  EXPECT_EQ(cmp, run_tool("compare " + file + " --policies none,fg-energylb --guard both"));
}

}  // namespace
}  // namespace joule::sim::test
