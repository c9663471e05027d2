// FG-and CG-EnergyLB against their rule (Padoin's thesis §4.1, exact), the
// two-PE static case through a step simulator, and properties on random
// observations.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <set>

#include "energylb.hpp"
#include "test_obs.hpp"

namespace joule::energy::test {
namespace {

Options with(Quantise q, Balancer b = Balancer::none) {
  Options o;
  o.quantise = q;
  o.balancer = b;
  return o;
}

Decision fg(const Observation& obs, const Options& opt) {
  return make_energy_policy("fg-energylb", opt)->decide(obs);
}

// Padoin's rule (§4.1.1) worked: relative load -> round and ceil P-states, the
// step time factor under round, and P/Pmax under the linear fit.
struct Row {
  double rel, round_ghz, ceil_ghz, factor, factor_tol, p_round, p_ceil;
};
const Row kTable[] = {
    {0.90, 2.2, 2.2, 0.982, 5e-4, 0.927, 0.927},  {0.80, 1.9, 2.0, 1.0105, 5e-5, 0.817, 0.854},
    {0.75, 1.8, 1.8, 1.000, 5e-4, 0.781, 0.781},  {0.60, 1.4, 1.5, 1.0286, 5e-5, 0.635, 0.671},
    {0.55, 1.3, 1.4, 1.0154, 5e-5, 0.598, 0.635}, {0.51, 1.2, 1.3, 1.02, 5e-5, 0.562, 0.598},
};

TEST(EnergyLb, DecisionTableOfSection27) {
  for (const auto& r : kTable) {
    const auto obs = make_obs({1.0, r.rel});
    const auto dr = fg(obs, with(Quantise::round)), dc = fg(obs, with(Quantise::ceil));
    ASSERT_EQ(dr.kind, Decision::Kind::dvfs) << r.rel;
    EXPECT_DOUBLE_EQ(ghz_of(obs, dr, 0), 2.4);
    EXPECT_DOUBLE_EQ(ghz_of(obs, dr, 1), r.round_ghz) << r.rel;
    EXPECT_DOUBLE_EQ(ghz_of(obs, dc, 1), r.ceil_ghz) << r.rel;
    EXPECT_NEAR(r.rel * 2.4 / ghz_of(obs, dr, 1), r.factor, r.factor_tol) << r.rel;
    const double pmax = seed_linear_watts(2.4);
    EXPECT_NEAR(seed_linear_watts(ghz_of(obs, dr, 1)) / pmax, r.p_round, 5e-4) << r.rel;
    EXPECT_NEAR(seed_linear_watts(ghz_of(obs, dc, 1)) / pmax, r.p_ceil, 5e-4) << r.rel;
  }
}

TEST(EnergyLb, ThresholdIsGreaterOrEqualAndDefaultsToFmaxOverFmin) {
  EXPECT_DOUBLE_EQ(effective_threshold(make_obs({1, 1}), Options{}), 2.0);
  std::uint64_t key = 1;
  auto at_two = make_obs({0, 0});
  add_keys(at_two, 0, {0.5, 0.5}, key);
  add_keys(at_two, 1, {0.5}, key);  // loads {1.0, 0.5}: ratio exactly 2
  const auto d = fg(at_two, with(Quantise::round, Balancer::greedy));
  EXPECT_EQ(d.kind, Decision::Kind::balance) << d.why;
  EXPECT_TRUE(d.domain_level.empty());  // either/or: frequencies untouched

  auto below = make_obs({1.0, 0.6});
  below.keys = {{1, 0, 1.0}, {2, 1, 0.6}};
  const auto r = fg(below, with(Quantise::round, Balancer::greedy));
  ASSERT_EQ(r.kind, Decision::Kind::dvfs);
  EXPECT_TRUE(r.moves.empty());
  EXPECT_DOUBLE_EQ(ghz_of(below, r, 0), 2.4);
  EXPECT_DOUBLE_EQ(ghz_of(below, r, 1), 1.4);
  EXPECT_DOUBLE_EQ(ghz_of(below, fg(below, with(Quantise::ceil, Balancer::greedy)), 1), 1.5);
}

TEST(EnergyLb, AloneClampsAndZeroMinimumIsInfinite) {
  EXPECT_TRUE(std::isinf(load_ratio({1.0, 0.0})));
  const auto obs = make_obs({1.0, 0.2, 0.0});  // ratio +inf, balancer none: DVFS anyway
  const auto d = fg(obs, with(Quantise::ceil));
  ASSERT_EQ(d.kind, Decision::Kind::dvfs);
  EXPECT_DOUBLE_EQ(ghz_of(obs, d, 1), 1.2);  // 0.48 GHz clamped to fmin
  EXPECT_DOUBLE_EQ(ghz_of(obs, d, 2), 1.2);
  Options t5 = with(Quantise::round);
  t5.threshold = 5;
  EXPECT_DOUBLE_EQ(ghz_of(obs, fg(make_obs({1.0, 0.3}), t5), 1), 1.2);
}

TEST(EnergyLb, CgSumsPerChip) {
  // Chip A {1.0, 1.0}, chip B {0.5, 0.7}: 2.0 vs 1.2, ratio 1.667 < 2.
  for (bool chip_domains : {true, false}) {
    const auto obs = make_obs({1.0, 1.0, 0.5, 0.7}, 2, chip_domains);
    auto cg = [&](Quantise q) { return make_energy_policy("cg-energylb", with(q))->decide(obs); };
    const auto r = cg(Quantise::round), c = cg(Quantise::ceil);
    ASSERT_EQ(r.kind, Decision::Kind::dvfs);
    EXPECT_NE(r.why.find("1.67"), std::string::npos) << r.why;
    for (int core = 0; core < 4; ++core) {
      const int dom = obs.cores[std::size_t(core)].domain;
      EXPECT_DOUBLE_EQ(ghz_of(obs, r, dom), core < 2 ? 2.4 : 1.4);
      EXPECT_DOUBLE_EQ(ghz_of(obs, c, dom), core < 2 ? 2.4 : 1.5);
    }
  }
}

TEST(EnergyLb, CgBalancesInsideChipsBelowThreshold) {
  auto obs = make_obs({0, 0, 0, 0}, 2, true);
  std::uint64_t key = 1;
  add_keys(obs, 0, {0.5, 0.4, 0.3}, key);
  add_keys(obs, 1, {0.1}, key);
  add_keys(obs, 2, {0.4, 0.3}, key);
  add_keys(obs, 3, {0.1}, key);
  const auto d =
      make_energy_policy("cg-energylb", with(Quantise::ceil, Balancer::refine))->decide(obs);
  ASSERT_EQ(d.kind, Decision::Kind::dvfs);
  EXPECT_FALSE(d.moves.empty());
  const auto where = apply_moves(obs, d);
  for (const auto& k : obs.keys)
    EXPECT_EQ(obs.cores[std::size_t(k.core)].chip, obs.cores[std::size_t(where.at(k.key))].chip);
}

TEST(EnergyLb, OnBalanceModes) {
  std::uint64_t key = 1;
  auto obs = make_obs({0, 0});
  add_keys(obs, 0, {0.6, 0.5, 0.4}, key);
  add_keys(obs, 1, {0.1}, key);
  obs.domains[0].level = 3;
  Options o = with(Quantise::ceil, Balancer::greedy);
  o.on_balance = OnBalance::reset_max;
  auto d = fg(obs, o);
  ASSERT_EQ(d.kind, Decision::Kind::balance);
  EXPECT_EQ(d.domain_level, (std::vector<int>{12, 12}));
  o.on_balance = OnBalance::lb_then_dvfs;  // greedy: 0.6+0.1 | 0.5+0.4
  d = fg(obs, o);
  ASSERT_EQ(d.kind, Decision::Kind::balance);
  ASSERT_EQ(d.domain_level.size(), 2u);  // new loads {0.7, 0.9}: 0.7/0.9*2.4 = 1.87 -> 1.9
  EXPECT_DOUBLE_EQ(ghz_of(obs, d, 0), 1.9);
  EXPECT_DOUBLE_EQ(ghz_of(obs, d, 1), 2.4);
}

// The two-PE static case (docs/simulator.md): {1.0, 0.6} s/step, 100 steps,
// period 10.
StepSimSetup two_pe() { return {{1.0, 0.6}, 100, 10, seed_pstates(), seed_linear_watts}; }

double pct(double x, double base) { return 100.0 * (x / base - 1.0); }

TEST(EnergyLb, TwoPeStaticCase) {
  const auto base = run_step_sim("none", Options{}, two_pe());
  EXPECT_DOUBLE_EQ(base.time_s, 100.0);
  EXPECT_NEAR(base.energy_j, 7260.0, 1e-9);
  struct Case {
    Quantise q;
    double dt, de;
  } cases[] = {{Quantise::ceil, 0.00, -14.78}, {Quantise::round, 2.57, -14.32}};
  for (const auto& c : cases) {
    const auto r = run_step_sim("fg-energylb", with(c.q), two_pe());
    std::printf("two-PE WORK+%s: time %+.3f %%, energy %+.3f %%\n",
                c.q == Quantise::ceil ? "ceil" : "round", pct(r.time_s, base.time_s),
                pct(r.energy_j, base.energy_j));
    EXPECT_NEAR(pct(r.time_s, base.time_s), c.dt, 0.05);
    EXPECT_NEAR(pct(r.energy_j, base.energy_j), c.de, 0.05);
    for (const auto& l : r.levels) EXPECT_EQ(l, r.levels.front());  // set once, then stable
  }
}

TEST(EnergyLb, AsWrittenFlipsTheHeavyPe) {
  Options o = with(Quantise::round);
  o.load_norm = LoadNorm::as_written;
  const auto base = run_step_sim("none", Options{}, two_pe());
  const auto r = run_step_sim("fg-energylb", o, two_pe());
  ASSERT_GE(r.levels.size(), 2u);
  EXPECT_EQ(r.levels[0], (std::vector<int>{12, 2}));  // 1st: {2.4, 1.4}
  EXPECT_EQ(r.levels[1], (std::vector<int>{2, 12}));  // 2nd: heavy PE slowed to 1.4
  std::printf("two-PE AS_WRITTEN+round: time %+.2f %%, energy %+.2f %%\n",
              pct(r.time_s, base.time_s), pct(r.energy_j, base.energy_j));
  EXPECT_GT(pct(r.time_s, base.time_s), 10.0);
}

// Random observations: every level from the table; ceil keeps the most
// loaded core at fmax and no core below its need; no key lost or duplicated.
TEST(EnergyLb, PropertiesOnRandomObservations) {
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> u(0, 1);
  const std::vector<std::uint32_t> odd = {1000000, 1300000, 1700000, 2200000, 3000000};
  for (int iter = 0; iter < 2000; ++iter) {
    const int n = 2 + int(rng() % 12), per_chip = 1 + int(rng() % 3);
    const auto& table = iter % 2 ? odd : seed_pstates();
    auto obs = make_obs(std::vector<double>(std::size_t(n), 0.0), per_chip, iter % 4 == 3, table);
    std::uint64_t key = 1;
    for (int c = 0; c < n; ++c) {
      const int nk = int(rng() % 5);
      std::vector<double> loads;
      for (int k = 0; k < nk; ++k) loads.push_back(u(rng));
      add_keys(obs, c, loads, key);
      obs.cores[std::size_t(c)].work_s += (rng() % 4 == 0) ? 0.0 : u(rng) * 0.2;
    }
    for (auto& d : obs.domains) d.level = int(rng() % d.pstates.size());
    Options o;
    o.quantise = rng() % 2 ? Quantise::round : Quantise::ceil;
    o.balancer = Balancer(rng() % 3);
    o.on_balance = OnBalance(rng() % 3);
    o.threshold = rng() % 3 ? 0.0 : 1.0 + 4 * u(rng);
    const bool cg = rng() % 2;
    const auto d = make_energy_policy(cg ? "cg-energylb" : "fg-energylb", o)->decide(obs);
    for (std::size_t i = 0; i < d.domain_level.size(); ++i) {
      EXPECT_GE(d.domain_level[i], 0);
      EXPECT_LT(d.domain_level[i], int(obs.domains[i].pstates.size()));
    }
    const auto where = apply_moves(obs, d);
    EXPECT_EQ(where.size(), obs.keys.size());
    for (const auto& [k, core] : where) EXPECT_TRUE(core >= 0 && core < n);
    if (o.quantise != Quantise::ceil || d.kind != Decision::Kind::dvfs || cg) continue;
    double wmax = 0;
    int heavy = 0;
    for (int c = 0; c < n; ++c)
      if (obs.cores[std::size_t(c)].work_s > wmax)
        wmax = obs.cores[std::size_t(c)].work_s, heavy = c;
    const auto& hd = obs.domains[std::size_t(obs.cores[std::size_t(heavy)].domain)];
    EXPECT_EQ(d.domain_level[std::size_t(obs.cores[std::size_t(heavy)].domain)],
              int(hd.pstates.size()) - 1);
    for (int c = 0; c < n; ++c) {  // ceil: each core fast enough for its own load
      const int dom = obs.cores[std::size_t(c)].domain;
      const double f =
          obs.domains[std::size_t(dom)].pstates[std::size_t(d.domain_level[std::size_t(dom)])];
      EXPECT_GE(f * (1 + 1e-9), obs.cores[std::size_t(c)].work_s / wmax * hd.fmax());
    }
  }
}

TEST(Remap, GreedyAndRefineKeepEveryKey) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  for (int iter = 0; iter < 500; ++iter) {
    const int n = 2 + int(rng() % 8);
    auto obs = make_obs(std::vector<double>(std::size_t(n), 0.0));
    std::uint64_t key = 100;
    for (int c = 0; c < n; ++c) {
      std::vector<double> loads(rng() % 6);
      for (auto& l : loads) l = u(rng);
      add_keys(obs, c, loads, key);
    }
    for (const auto& moves :
         {greedy_remap(obs.keys, equal_problem(obs, active_cores(obs))),
          refine_remap(obs.keys, equal_problem(obs, active_cores(obs)), 0.03)}) {
      Decision d;
      d.moves = moves;
      const auto where = apply_moves(obs, d);
      EXPECT_EQ(where.size(), obs.keys.size());
      std::set<std::uint64_t> moved;
      for (const auto& [k, c] : moves) EXPECT_TRUE(moved.insert(k).second);
    }
  }
}

TEST(Remap, RefineMovesFewKeysAndGreedyBalances) {
  auto obs = make_obs({0, 0, 0});
  std::uint64_t key = 1;
  add_keys(obs, 0, {0.5, 0.5, 0.5, 0.5}, key);
  add_keys(obs, 1, {0.5, 0.5}, key);
  add_keys(obs, 2, {0.5}, key);  // 2.0 | 1.0 | 0.5, average 1.1667
  const auto p = equal_problem(obs, active_cores(obs));
  EXPECT_EQ(refine_remap(obs.keys, p, 0.03).size(), 1u);  // one key 0 -> 2: 1.5 | 1.0 | 1.0
  Decision d;
  d.moves = greedy_remap(obs.keys, p);
  std::vector<double> load(3, 0);
  for (const auto& [k, c] : apply_moves(obs, d)) load[std::size_t(c)] += 0.5;
  EXPECT_DOUBLE_EQ(*std::max_element(load.begin(), load.end()), 1.5);
}

}  // namespace
}  // namespace joule::energy::test
