// The RandCent and partition balancers (randcent.cpp, partition.cpp): what
// Padoin's thesis compares EnergyLB against (§5.2.1, Table 5.3: "Ra", "S").
// Shapes, not exact placements: RandCent ignores loads and is repeatable;
// partition balances load and cuts few edges of the key graph, chips first.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "energy_config.hpp"
#include "energylb.hpp"
#include "test_obs.hpp"

namespace joule::energy::test {
namespace {

// `n` keys of `w` each, all on core 0 of `cores` cores (`per_chip` a chip).
Observation piled(int cores, int per_chip, int n, double w) {
  auto obs = make_obs(std::vector<double>(std::size_t(cores), 0.0), per_chip);
  std::uint64_t key = 0;
  add_keys(obs, 0, std::vector<double>(std::size_t(n), w), key);
  return obs;
}

// A ring over the keys in the order `ring` lists them.
std::vector<KeyEdge> ring_edges(const std::vector<std::uint64_t>& ring) {
  std::vector<KeyEdge> e;
  for (std::size_t i = 0; i < ring.size(); ++i)
    e.push_back({ring[i], ring[(i + 1) % ring.size()], 1.0});
  return e;
}

std::map<std::uint64_t, int> placed(const Observation& obs, const Moves& m) {
  Decision d;
  d.moves = m;
  return apply_moves(obs, d);
}

// Edges whose ends sit on different cores (or, with per_chip > 1, chips).
int cut(const std::vector<KeyEdge>& edges, const std::map<std::uint64_t, int>& at,
        int per_chip = 1) {
  int n = 0;
  for (const auto& e : edges) n += at.at(e.a) / per_chip != at.at(e.b) / per_chip;
  return n;
}

std::vector<double> loads(const Observation& obs, const std::map<std::uint64_t, int>& at) {
  std::vector<double> l(obs.cores.size(), 0.0);
  for (const auto& k : obs.keys) l[std::size_t(at.at(k.key))] += k.work_s;
  return l;
}

TEST(RandCent, RepeatableIgnoresLoadsAndSpreadsOverEveryCore) {
  auto obs = piled(8, 1, 200, 0.01);
  const auto p = equal_problem(obs, active_cores(obs));
  const auto a = randcent_remap(obs.keys, p, 7), b = randcent_remap(obs.keys, p, 7);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, randcent_remap(obs.keys, p, 8));                // a new draw at each iteration
  for (auto& k : obs.keys) k.work_s *= double(k.key % 5 + 1);  // other loads: same draw
  EXPECT_EQ(a, randcent_remap(obs.keys, equal_problem(obs, active_cores(obs)), 7));
  std::set<int> used;
  for (const auto& [key, core] : placed(obs, a)) used.insert(core);
  EXPECT_EQ(used.size(), 8u);
}

TEST(RandCent, OnlyTheProblemsCores) {
  auto obs = piled(8, 1, 100, 0.01);
  const auto m = randcent_remap(obs.keys, equal_problem(obs, {0, 2, 4}), 1);
  for (const auto& [key, core] : m) EXPECT_TRUE(core == 2 || core == 4) << core;
}

TEST(Partition, ShuffledRingIntoContiguousBalancedArcs) {
  auto obs = piled(8, 2, 64, 0.01);  // 4 chips x 2 cores
  std::vector<std::uint64_t> ring;
  for (std::uint64_t i = 0; i < 64; ++i) ring.push_back((i * 37) % 64);  // ring != key order
  const auto edges = ring_edges(ring);
  const auto p = equal_problem(obs, active_cores(obs));
  const auto part = placed(obs, partition_remap(obs.keys, edges, p, 0.03));
  const auto greedy = placed(obs, greedy_remap(obs.keys, p));
  for (double l : loads(obs, part)) EXPECT_NEAR(l, 0.08, 0.0101);
  EXPECT_LE(cut(edges, part), 10);    // 8 arcs: 8 cut edges at best
  EXPECT_LE(cut(edges, part, 2), 5);  // chips first: 4 chip arcs
  EXPECT_GE(cut(edges, greedy), 40);  // greedy ignores the graph
}

TEST(Partition, WithoutEdgesContiguousKeyBlocksOfEqualLoad) {
  auto obs = piled(6, 1, 60, 0.01);
  const auto at =
      placed(obs, partition_remap(obs.keys, {}, equal_problem(obs, active_cores(obs)), 0.03));
  for (double l : loads(obs, at)) EXPECT_NEAR(l, 0.1, 0.0101);
  for (std::uint64_t k = 1; k < 60; ++k) EXPECT_LE(at.at(k - 1), at.at(k));  // blocks in order
}

TEST(Partition, StaticMappingMovesNothingTheSecondTime) {
  auto obs = piled(4, 1, 40, 0.01);
  const auto p = equal_problem(obs, active_cores(obs));
  const auto first = partition_remap(obs.keys, {}, p, 0.03);
  for (const auto& [key, core] : first) obs.keys[std::size_t(key)].core = core;
  EXPECT_FALSE(first.empty());
  EXPECT_TRUE(partition_remap(obs.keys, {}, p, 0.03).empty());
}

TEST(Partition, FgEnergyLbRunsItAtTheThreshold) {
  auto obs = piled(4, 1, 40, 0.01);
  obs.cores[1].work_s = obs.cores[1].busy_s = 0.01;  // ratio 40 >= 2
  Options o;
  o.balancer = Balancer::partition;
  const auto d = make_energy_policy("fg-energylb", o)->decide(obs);
  EXPECT_EQ(d.kind, Decision::Kind::balance);
  EXPECT_FALSE(d.moves.empty());
}

TEST(Partition, BalancerNamesReachTheOptions) {
  core::add_config_section(energy_config_keys);
  core::Config cfg;
  cfg.set("JOULE_ENERGY_BALANCER", "randcent");
  EXPECT_EQ(options_from_config(cfg).balancer, Balancer::randcent);
  cfg.set("JOULE_ENERGY_BALANCER", "partition");
  EXPECT_EQ(options_from_config(cfg).balancer, Balancer::partition);
}

}  // namespace
}  // namespace joule::energy::test
