// Sarood & Kale's "Cool" LB through joule-sim: templb holds the chips at T_max
// with per-chip DVFS and recovers time by frequency-aware refine; against the
// full-frequency run (policy none) and DVFS without rebalancing (tolerance 1:
// no core ever carries twice its share). Directional checks (the paper's values
// are figure-only).
#include <gtest/gtest.h>

#include <algorithm>

#include "sim_test_util.hpp"

namespace joule::sim::test {
namespace {

Scenario cool(const std::string& tolerance) {
  return scenario("seed004-templb.toml", {"policy.tolerance=" + tolerance});
}

// §5: once T_max is reached, the hottest chip stays within 1 C of it for the
// second half of the run (the paper: the average within 1 C; the band
// t_band_c is 1 K, one P-state moves a chip by ~1.5 K at most here, and the hot
// spot pinned at fmin settles at 43.4 C: bound -1.5 .. +1 K).
TEST(SimSeed004, TemplbHoldsTmax) {
  const auto r = run_scenario(cool("0.03"), true);
  const auto half = r.steps.begin() + std::ptrdiff_t(r.steps.size() / 2);
  for (auto it = half; it != r.steps.end(); ++it) {
    EXPECT_LT(it->max_temp_c, 44.0 + 1.0) << it->step;
    EXPECT_GT(it->max_temp_c, 44.0 - 1.5) << it->step;
  }
}

// §5, §7.1: templb's time penalty is in the paper's 2-20 % and below DVFS
// alone's; machine energy near 1 for templb, above 1 for DVFS alone (waiting
// cores burn 40 % idle power behind the slow chips). c_norm (Eq. 5 with T_hot -
// T_ac proportional to machine power) equals e_norm here.
TEST(SimSeed004, TemplbCutsThePenaltyOfDvfsAlone) {
  const auto lb = with_baseline(cool("0.03"));
  const auto naive = with_baseline(cool("1"));
  EXPECT_EQ(naive.run.migrations, 0);
  EXPECT_GT(lb.run.migrations, 0);
  EXPECT_GT(lb.dtime(), 2.0);
  EXPECT_LT(lb.dtime(), 20.0);
  EXPECT_LT(lb.dtime(), naive.dtime() - 10.0);
  EXPECT_LT(std::abs(lb.denergy()), 10.0);
  EXPECT_GT(naive.denergy(), 0.0);
  EXPECT_LT(lb.denergy(), naive.denergy());
}

// §3.2: tolerance 0.01-0.05 perform alike (t_norm within 1 %), a zero tolerance
// migrates most, a large one (0.2) leaves imbalance (slower).
TEST(SimSeed004, ToleranceSweepIsFlat) {
  std::vector<RunResult> r;
  for (const char* t : {"0", "0.01", "0.03", "0.05", "0.2"}) r.push_back(run_scenario(cool(t)));
  for (int i = 2; i <= 3; ++i) EXPECT_NEAR(r[i].time_s / r[1].time_s, 1.0, 0.01) << i;
  EXPECT_GT(r[0].migrations, r[1].migrations);
  EXPECT_GE(r[1].migrations, r[3].migrations);
  EXPECT_GT(r[4].time_s, r[3].time_s * 1.01);
}

}  // namespace
}  // namespace joule::sim::test
