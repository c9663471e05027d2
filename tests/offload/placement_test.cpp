// Thread placement with KMP_AFFINITY semantics: exact maps for compact, scatter
// and balanced on small synthetic topologies and on a 60 × 4 Xeon Phi, the
// coincidences of Ramapantulu's thesis (§5.1), permute / offset, errors, and
// the joule-ctl card-map command line.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "placement.hpp"
#include "run_command.hpp"

namespace jp = joule::card_affinity;

namespace {

using CorePu = std::pair<int, int>;

std::vector<CorePu> map_of(const std::string& topo, int threads, jp::Affinity a, int permute = 0,
                           int offset = 0) {
  const auto t = jp::CardTopology::from_synthetic(topo);
  std::vector<CorePu> out;
  for (const jp::PuSlot& s : jp::place_threads(t, threads, {a, permute, offset}))
    out.emplace_back(s.core, s.pu);
  return out;
}

std::set<int> pu_set(const jp::CardTopology& t, int n, jp::Affinity a) {
  std::set<int> pus;
  for (const jp::PuSlot& s : jp::place_threads(t, n, {a, 0, 0})) pus.insert(s.pu);
  return pus;
}

const char* kPhi = "package:1 core:60 pu:4";

}  // namespace

TEST(Placement, TopologyFromHwlocSynthetic) {
  const auto t = jp::CardTopology::from_synthetic(kPhi);
  EXPECT_EQ(t.pu_count(), 240);
  EXPECT_EQ(t.core_count(), 60);
  EXPECT_EQ(t.package_count(), 1);
  EXPECT_EQ(t.uniform_pus_per_core(), 4);
  EXPECT_EQ(t.pus()[5].core, 1);
  EXPECT_EQ(t.pus()[5].ctx, 1);
}

TEST(Placement, CompactSmall) {
  const std::vector<CorePu> want = {{0, 0}, {0, 1}, {1, 2}, {1, 3}, {2, 4}};
  EXPECT_EQ(map_of("package:1 core:3 pu:2", 5, jp::Affinity::compact), want);
}

TEST(Placement, ScatterSmall) {
  const std::vector<CorePu> want = {{0, 0}, {1, 2}, {2, 4}, {0, 1}, {1, 3}};
  EXPECT_EQ(map_of("package:1 core:3 pu:2", 5, jp::Affinity::scatter), want);
}

TEST(Placement, BalancedSmall) {
  // 5 threads on 3 cores: cores 0 and 1 take two, core 2 one; ids contiguous.
  const std::vector<CorePu> want = {{0, 0}, {0, 1}, {1, 2}, {1, 3}, {2, 4}};
  EXPECT_EQ(map_of("package:1 core:3 pu:2", 5, jp::Affinity::balanced), want);
  const std::vector<CorePu> four = {{0, 0}, {0, 1}, {1, 2}, {2, 4}};
  EXPECT_EQ(map_of("package:1 core:3 pu:2", 4, jp::Affinity::balanced), four);
}

TEST(Placement, ScatterSpreadsOverPackagesFirst) {
  // 2 packages × 2 cores × 2 PUs: scatter alternates packages, then cores.
  const std::vector<CorePu> want = {{0, 0}, {2, 4}, {1, 2}, {3, 6}, {0, 1}};
  EXPECT_EQ(map_of("package:2 core:2 pu:2", 5, jp::Affinity::scatter), want);
}

TEST(Placement, PermuteAndOffset) {
  // compact,1 makes the context level most significant: like scatter on
  // one package.
  EXPECT_EQ(map_of("package:1 core:3 pu:2", 6, jp::Affinity::compact, 1),
            map_of("package:1 core:3 pu:2", 6, jp::Affinity::scatter));
  // scatter,2 is compact,0.
  EXPECT_EQ(map_of("package:2 core:2 pu:2", 8, jp::Affinity::scatter, 2),
            map_of("package:2 core:2 pu:2", 8, jp::Affinity::compact));
  // offset 3 starts compact at the fourth PU and wraps.
  const std::vector<CorePu> want = {{1, 3}, {2, 4}, {2, 5}, {0, 0}};
  EXPECT_EQ(map_of("package:1 core:3 pu:2", 4, jp::Affinity::compact, 0, 3), want);
}

TEST(Placement, PhiExactMaps) {
  const auto compact = map_of(kPhi, 240, jp::Affinity::compact);
  const auto scatter = map_of(kPhi, 240, jp::Affinity::scatter);
  const auto balanced = map_of(kPhi, 120, jp::Affinity::balanced);
  for (int t = 0; t < 240; ++t) {
    EXPECT_EQ(compact[t], CorePu(t / 4, t)) << t;
    EXPECT_EQ(scatter[t], CorePu(t % 60, (t % 60) * 4 + t / 60)) << t;
  }
  for (int t = 0; t < 120; ++t) EXPECT_EQ(balanced[t], CorePu(t / 2, (t / 2) * 4 + t % 2)) << t;
}

TEST(Placement, PhiSeedCounts) {
  const auto t = jp::CardTopology::from_synthetic(kPhi);
  auto counts = [&](int n, jp::Affinity a) {
    std::array<int, 5> per{};  // cores with 0..4 threads
    for (int c : jp::threads_per_core(t, jp::place_threads(t, n, {a, 0, 0}))) ++per[c];
    return per;
  };
  EXPECT_EQ(counts(238, jp::Affinity::scatter), (std::array<int, 5>{0, 0, 0, 2, 58}));
  EXPECT_EQ(counts(192, jp::Affinity::scatter), (std::array<int, 5>{0, 0, 0, 48, 12}));
  EXPECT_EQ(counts(187, jp::Affinity::compact), (std::array<int, 5>{13, 0, 0, 1, 46}));
}

TEST(Placement, PhiCompactScatterCoincideOnlyAt1_239_240) {
  const auto t = jp::CardTopology::from_synthetic(kPhi);
  std::vector<int> same;
  for (int n = 1; n <= 240; ++n)
    if (pu_set(t, n, jp::Affinity::compact) == pu_set(t, n, jp::Affinity::scatter))
      same.push_back(n);
  EXPECT_EQ(same, (std::vector<int>{1, 239, 240}));
}

TEST(Placement, PhiBalancedHasScatterCountsAndContiguousIds) {
  const auto t = jp::CardTopology::from_synthetic(kPhi);
  for (int n = 1; n <= 240; ++n) {
    const auto bal = jp::place_threads(t, n, {jp::Affinity::balanced, 0, 0});
    const auto sca = jp::place_threads(t, n, {jp::Affinity::scatter, 0, 0});
    ASSERT_EQ(jp::threads_per_core(t, bal), jp::threads_per_core(t, sca)) << n;
    for (int i = 1; i < n; ++i) ASSERT_GE(bal[i].core, bal[i - 1].core) << n;
    std::set<int> pus;
    for (const auto& s : bal) pus.insert(s.pu);
    ASSERT_EQ(static_cast<int>(pus.size()), n) << "a PU used twice at " << n;
  }
}

TEST(Placement, Errors) {
  const auto t = jp::CardTopology::from_synthetic("package:1 core:2 pu:2");
  EXPECT_THROW(jp::place_threads(t, 5, {}), jp::PlacementError);
  EXPECT_THROW(jp::place_threads(t, 0, {}), jp::PlacementError);
  EXPECT_THROW(jp::place_threads(t, 2, {jp::Affinity::compact, 3, 0}), jp::PlacementError);
  EXPECT_THROW(jp::place_threads(t, 2, {jp::Affinity::balanced, 1, 0}), jp::PlacementError);
  EXPECT_THROW(jp::CardTopology::from_synthetic("package:1 kore:2"), jp::PlacementError);
  try {
    jp::parse_affinity("spread");
    FAIL();
  } catch (const jp::PlacementError& e) {
    EXPECT_NE(std::string(e.what()).find("compact, scatter, balanced"), std::string::npos);
  }
}

TEST(Placement, KmpSpecsParseAndPrintBack) {
  const jp::PlacementOptions o = jp::parse_placement("scatter,1,5");
  EXPECT_EQ(o.affinity, jp::Affinity::scatter);
  EXPECT_EQ(o.permute, 1);
  EXPECT_EQ(o.offset, 5);
  EXPECT_EQ(jp::placement_spec(o), "scatter,1,5");
  EXPECT_EQ(jp::placement_spec(jp::parse_placement("compact,0,0")), "compact");
  EXPECT_EQ(jp::placement_spec(jp::parse_placement("compact,0,2")), "compact,0,2");
  EXPECT_EQ(jp::placement_spec(jp::parse_placement("balanced")), "balanced");
  for (const char* bad : {"", "compact,", "compact,a", "compact,1,2,3", "compact,-1", "spread"})
    EXPECT_THROW(jp::parse_placement(bad), jp::PlacementError) << bad;
}

// A huge synthetic card is refused before hwloc builds it (it used to spin
// for minutes building 10^10 objects).
TEST(Placement, HugeTopologyIsRefusedWithTheLimit) {
  try {
    jp::CardTopology::from_synthetic("package:1 core:100000 pu:4");
    FAIL() << "accepted";
  } catch (const jp::PlacementError& e) {
    EXPECT_NE(std::string(e.what()).find("allowed: 1..4096 PUs"), std::string::npos) << e.what();
  }
  EXPECT_THROW(jp::CardTopology::from_synthetic("package:1000000 core:1000000 pu:1000000"),
               jp::PlacementError);
  EXPECT_THROW(jp::CardTopology::uniform(1, 100000, 1), jp::PlacementError);
  EXPECT_EQ(jp::CardTopology::from_synthetic("package:1 core:1024 pu:4").pu_count(), 4096);
}

#ifdef JOULE_CTL_EXE
namespace {

std::pair<int, std::string> run(const std::string& args) {
  return joule_test::run_status(std::string(JOULE_CTL_EXE) + " card-map " + args);
}

}  // namespace

TEST(CardMapCli, PrintsOneLinePerThread) {
  auto [rc, out] = run("--topology 'package:1 core:60 pu:4' --threads 3 --affinity scatter");
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(out, "thread 0 core 0 pu 0\nthread 1 core 1 pu 4\nthread 2 core 2 pu 8\n");
  std::tie(rc, out) = run("--topology 'package:1 core:60 pu:4' --threads 3 --affinity balanced");
  EXPECT_EQ(out, "thread 0 core 0 pu 0\nthread 1 core 1 pu 4\nthread 2 core 2 pu 8\n");
  std::tie(rc, out) = run("--topology 'package:1 core:2 pu:4' --threads 3 --affinity balanced");
  EXPECT_EQ(out, "thread 0 core 0 pu 0\nthread 1 core 0 pu 1\nthread 2 core 1 pu 4\n");
}

TEST(CardMapCli, Errors) {
  auto [rc, out] = run("--threads 4 --affinity spread");
  EXPECT_NE(rc, 0);
  EXPECT_NE(out.find("allowed: compact, scatter, balanced"), std::string::npos) << out;
  std::tie(rc, out) = run("--threads 241 --affinity compact");
  EXPECT_NE(rc, 0);
  EXPECT_NE(out.find("has 240 PUs"), std::string::npos) << out;
  std::tie(rc, out) = run("--topology 'core:x' --threads 1");
  EXPECT_NE(rc, 0);
  EXPECT_NE(out.find("bad topology 'core:x'"), std::string::npos) << out;
}

TEST(CardMapCli, HugeTopologyIsAUsageError) {
  auto [rc, out] = run("--topology 'package:1 core:100000 pu:1' --threads 1");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("allowed: 1..4096 PUs"), std::string::npos) << out;
}
#endif
