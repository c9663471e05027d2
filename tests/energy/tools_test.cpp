// The small APIs beside the policies: mpi-slack's state machine, the CPU-mask
// choice under the power models of Padoin's EnergyLB thesis, and Cabrera et
// al.'s work splitter.
#include <gtest/gtest.h>

#include <cmath>

#include "core_mask.hpp"
#include "mpi_slack.hpp"
#include "splitter.hpp"
#include "step_sim.hpp"

namespace joule::energy::test {
namespace {

using A = MpiSlack::Action;
constexpr std::uint64_t us = 1000;

TEST(MpiSlack, ShortCallsPayNothing) {
  MpiSlack m;
  EXPECT_EQ(m.on_call_enter(0), A::none);
  EXPECT_EQ(m.poll(499 * us), A::none);
  EXPECT_EQ(m.on_call_exit(499 * us), A::none);
  EXPECT_FALSE(m.slowed());
  EXPECT_EQ(m.stats().calls, 1u);
}

TEST(MpiSlack, SlowsAfterTheTimeoutAndRestores) {
  MpiSlack m;
  m.on_call_enter(1000 * us);
  EXPECT_EQ(m.poll(1400 * us), A::none);
  EXPECT_EQ(m.poll(1500 * us), A::slow_down);
  EXPECT_EQ(m.poll(1600 * us), A::none);   // once per call
  EXPECT_EQ(m.poll(90000 * us), A::none);  // no lending without LeWI
  EXPECT_EQ(m.on_call_exit(91500 * us), A::restore);
  EXPECT_TRUE(m.slowed());
  EXPECT_NEAR(m.stats().slow_s, 0.09, 1e-12);
  m.on_call_enter(100000 * us);  // the next call starts clean
  EXPECT_FALSE(m.slowed());
}

TEST(MpiSlack, LendsInsteadWhenTheCallIsLongEnough) {
  MpiSlack m(mpi_slack_options(Options{}, true));
  m.on_call_enter(0);
  EXPECT_EQ(m.poll(600 * us), A::slow_down);
  EXPECT_EQ(m.poll(4999 * us), A::none);
  EXPECT_EQ(m.poll(5000 * us), A::lend);
  EXPECT_EQ(m.poll(9000 * us), A::none);
  EXPECT_EQ(m.on_call_exit(9000 * us), A::restore);
  EXPECT_TRUE(m.lent());
  MpiSlack direct({500e-6, 200e-6, true});  // lend threshold first: never slows
  direct.on_call_enter(0);
  EXPECT_EQ(direct.poll(300 * us), A::lend);
  EXPECT_EQ(direct.poll(800 * us), A::none);
  EXPECT_FALSE(direct.slowed());
}

TEST(MpiSlack, NestedCallsCountAsTheOuterOne) {
  MpiSlack m;
  m.on_call_enter(0);
  m.on_call_enter(100 * us);
  EXPECT_EQ(m.poll(600 * us), A::slow_down);
  EXPECT_EQ(m.on_call_exit(700 * us), A::none);
  EXPECT_TRUE(m.in_call());
  EXPECT_EQ(m.on_call_exit(800 * us), A::restore);
  EXPECT_FALSE(m.in_call());
  EXPECT_EQ(m.on_call_exit(900 * us), A::none);  // unbalanced exit: ignored
  EXPECT_EQ(m.stats().calls, 1u);
}

MaskInput seed_mask(double (*watts)(double)) {
  MaskInput in;
  in.cores = 8;
  in.pstates = seed_pstates();
  for (auto khz : in.pstates) in.busy_watts.push_back(watts(khz / 1e6));
  in.idle_watts = 20.4;
  return in;
}

TEST(CoreMask, LinearModelKeepsFewCoresAtFmax) {
  auto in = seed_mask(seed_linear_watts);
  in.parallelism = 3;
  const auto c = choose_core_mask(in);
  EXPECT_EQ(c.cores, 3);
  EXPECT_EQ(c.level, 12);
  EXPECT_NEAR(c.energy_ratio, 108.9 / 210.9, 1e-9);  // 3 x 36.3 vs + 5 idle x 20.4
  EXPECT_DOUBLE_EQ(c.time_ratio, 1.0);
}

TEST(CoreMask, CubicModelSpreadsOverMoreSlowerCores) {
  auto in = seed_mask(seed_cubic_watts);
  in.parallelism = 3;
  const auto c = choose_core_mask(in);
  EXPECT_EQ(c.cores, 4);  // 4 x 1.8 GHz = 3 x 2.4 GHz of work, less dynamic power
  EXPECT_EQ(c.level, 6);
  EXPECT_NEAR(c.energy_ratio, 4 * seed_cubic_watts(1.8) / (3 * seed_cubic_watts(2.4) + 5 * 20.4),
              1e-9);
  EXPECT_LE(c.time_ratio, 1.01);
}

TEST(CoreMask, FullParallelismKeepsEverything) {
  auto in = seed_mask(seed_cubic_watts);
  in.parallelism = 8;
  const auto c = choose_core_mask(in);
  EXPECT_EQ(c.cores, 8);
  EXPECT_EQ(c.level, 12);
  EXPECT_DOUBLE_EQ(c.energy_ratio, 1.0);
}

std::vector<DeviceSample> run(Splitter& s, const std::vector<DeviceSample>& dev, int iters) {
  for (int i = 0; i < iters; ++i) {
    const auto& w = s.next(dev);
    double sum = 0;
    for (double x : w) {
      EXPECT_GE(x, 0.0);
      sum += x;
    }
    EXPECT_NEAR(sum, 1.0, 1e-9);
  }
  return dev;
}

// The objective's minimum over a fine grid of two-device splits.
double brute_force(Objective obj, const std::vector<DeviceSample>& dev) {
  double best = INFINITY;
  for (int i = 0; i <= 1000; ++i)
    best = std::min(best, split_estimate(obj, {i / 1000.0, 1 - i / 1000.0}, dev));
  return best;
}

TEST(Splitter, TimeConvergesToRateProportionalSplit) {
  Splitter s(2, Objective::time);
  EXPECT_EQ(s.split(), (std::vector<double>{0.5, 0.5}));
  run(s, {{2, 100, 10}, {1, 100, 10}}, 60);
  EXPECT_TRUE(s.converged());
  EXPECT_NEAR(s.split()[0], 2.0 / 3, 0.01);
}

TEST(Splitter, EveryObjectiveReachesTheSweepMinimum) {
  const std::vector<DeviceSample> dev = {{2, 300, 10}, {1, 60, 5}};  // unequal perf/W
  for (Objective obj : {Objective::energy, Objective::time, Objective::edp}) {
    Splitter s(2, obj);
    run(s, dev, 100);
    EXPECT_TRUE(s.converged());
    EXPECT_LE(split_estimate(obj, s.split(), dev), brute_force(obj, dev) * 1.01) << int(obj);
  }
  Splitter e(2, Objective::energy), t(2, Objective::time);
  run(e, dev, 100);
  run(t, dev, 100);
  EXPECT_GT(std::abs(e.split()[0] - t.split()[0]), 0.05);  // the objective matters here
}

TEST(Splitter, EqualEfficiencyGivesTheSameSplitForEnergyAndTime) {
  const std::vector<DeviceSample> dev = {{2, 200, 40}, {1, 100, 20}};  // same J per unit
  Splitter e(2, Objective::energy), t(2, Objective::time);
  run(e, dev, 100);
  run(t, dev, 100);
  EXPECT_NEAR(e.split()[0], t.split()[0], 0.01);
}

TEST(Splitter, SwappingTheObjectiveRecalibrates) {
  const std::vector<DeviceSample> dev = {{2, 300, 10}, {1, 60, 5}};
  Splitter s(2, Objective::time);
  run(s, dev, 100);
  const double before = s.split()[0];
  s.set_objective(Objective::energy);
  EXPECT_FALSE(s.converged());
  run(s, dev, 100);
  EXPECT_GT(std::abs(s.split()[0] - before), 0.05);
}

}  // namespace
}  // namespace joule::energy::test
