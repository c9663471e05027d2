// Cabrera et al.'s splitter through joule-sim (workload.kind = split): the live
// Splitter against the even and the time-proportional splits on two devices of
// unequal performance per watt. Exact model, so the bounds are tight where the
// optimum is known in closed form and directional otherwise.
#include <gtest/gtest.h>

#include "sim_test_util.hpp"

namespace joule::sim::test {
namespace {

RunResult split(const std::string& method, const std::vector<std::string>& more = {}) {
  std::vector<std::string> sets = {"split.method=" + method};
  sets.insert(sets.end(), more.begin(), more.end());
  return run_scenario(scenario("seed003-split.toml", sets));
}

// Time-proportional is the fastest split; the splitter with the time
// objective converges to it (delta_min 0.005 of the work: within 0.5 % of
// time); with the energy objective it spends the least energy (the
// M2090-like card is not worth its joules here: it ends with no work) and
// pays in time (C3-7: objectives diverge with unequal perf/W).
TEST(SimSeed003, SplitterFindsEachObjectivesOptimum) {
  const auto even = split("even"), prop = split("proportional");
  const auto t = split("splitter", {"split.objective=time"});
  const auto e = split("splitter", {"split.objective=energy"});
  EXPECT_LT(prop.time_s, even.time_s);
  EXPECT_LT(prop.energy_j, even.energy_j);
  EXPECT_NEAR(t.time_s / prop.time_s, 1.0, 0.005);
  EXPECT_GT(t.converged_at, 0);
  EXPECT_LT(e.energy_j, prop.energy_j);
  EXPECT_GT(e.time_s, prop.time_s);
  EXPECT_NEAR(e.split[0], 1.0, 1e-9);
}

// C3-7: with equal perf/W (busy watts proportional to rate) the energy
// objective lands on the time-proportional split too.
TEST(SimSeed003, EqualPerfPerWattObjectivesAgree) {
  const auto e = split("splitter", {"split.objective=energy", "split.busy_w=120,84"});
  EXPECT_NEAR(e.split[0], 1.0 / 1.7, 0.01);
}

// C3-1: when an iteration is short against the cost of measuring and
// deciding, the even split beats both dynamic methods; on long iterations
// both beat it.
TEST(SimSeed003, EvenWinsSmallIterations) {
  const std::vector<std::string> small = {"split.lb_s=0.05", "split.work=0.05"};
  const auto even = split("even", small), prop = split("proportional", small);
  const auto e = split("splitter", small);
  EXPECT_LT(even.energy_j, prop.energy_j);
  EXPECT_LT(even.energy_j, e.energy_j);
  EXPECT_GT(split("even").energy_j, split("splitter").energy_j);
}

// The tool's split subcommand prints the four methods.
TEST(SimSeed003, SplitSubcommand) {
  int status = -1;
  const auto out =
      run_tool("split " + std::string(JOULE_SIM_SCENARIOS) + "/seed003-split.toml", &status);
  EXPECT_EQ(status, 0);
  for (const char* m : {"even", "proportional", "splitter-time", "splitter-energy"})
    EXPECT_NE(out.find(m), std::string::npos) << m;
}

}  // namespace
}  // namespace joule::sim::test
