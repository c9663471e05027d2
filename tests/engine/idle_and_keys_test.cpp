// AffinityMap::spread (where unplanned affinity keys go) and AdaptiveSpin
// (how long an idle worker spins), both pure functions of what they saw.
#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "adaptive_spin.hpp"
#include "affinity_map.hpp"

namespace joule::engine {

using namespace joule::core;
namespace {

using std::chrono::microseconds;

TEST(AffinitySpread, FewKeysKeepKeyModuloWorkers) {
  AffinityMap m;
  EXPECT_EQ(m.spread(1, 2), 1);  // a single key: key % n, as before
  EXPECT_EQ(m.spread(0, 2), 0);
  EXPECT_EQ(m.spread(6, 1), 0);
}

TEST(AffinitySpread, ManyKeysGoInContiguousRuns) {
  AffinityMap m;
  for (std::uint64_t k = 0; k < 8; ++k) m.spread(k, 2);  // a first sweep sees the range
  std::vector<int> got;
  for (std::uint64_t k = 0; k < 8; ++k) got.push_back(m.spread(k, 2));
  EXPECT_EQ(got, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  for (std::uint64_t k = 0; k < 8; ++k) got[k] = m.spread(k, 3);
  EXPECT_EQ(got, (std::vector<int>{0, 0, 0, 1, 1, 1, 2, 2}));
}

TEST(AffinitySpread, RangeNeedNotStartAtZeroAndHugeKeysStayInRange) {
  AffinityMap m;
  for (std::uint64_t k = 100; k < 104; ++k) m.spread(k, 2);
  EXPECT_EQ(m.spread(100, 2), 0);
  EXPECT_EQ(m.spread(101, 2), 0);
  EXPECT_EQ(m.spread(102, 2), 1);
  EXPECT_EQ(m.spread(103, 2), 1);
  AffinityMap wide;
  wide.spread(0, 4);
  const int w = wide.spread(~std::uint64_t(0) - 1, 4);  // the largest key below "no key"
  EXPECT_EQ(w, 3);
  EXPECT_EQ(wide.spread(0, 4), 0);
}

TEST(AffinitySpread, PlannedKeysAreNotAffected) {
  AffinityMap m;
  for (std::uint64_t k = 0; k < 8; ++k) m.spread(k, 2);
  ASSERT_TRUE(m.set(1, 1));
  EXPECT_EQ(m.worker_of(1), 1);
  EXPECT_EQ(m.worker_of(2), -1);
}

TEST(AdaptiveSpin, StartsAtTheFloorAndCoversShortGaps) {
  AdaptiveSpin s(100, 2000);
  EXPECT_EQ(s.budget(), microseconds(100));
  s.learn(microseconds(1000), true);
  EXPECT_EQ(s.budget(), microseconds(1500));  // the gap and half again
  s.learn(microseconds(1900), true);
  EXPECT_EQ(s.budget(), microseconds(2000));  // never beyond the cap
  s.learn(microseconds(20), true);
  EXPECT_EQ(s.budget(), microseconds(100));  // never below the floor
}

TEST(AdaptiveSpin, LongGapsAndNonWorkWakeupsDoNotStretchIt) {
  AdaptiveSpin s(100, 2000);
  s.learn(microseconds(1000), true);
  s.learn(microseconds(5000), false);  // a stop or a rest: no lesson
  EXPECT_EQ(s.budget(), microseconds(1500));
  s.learn(microseconds(5000), true);  // too long to spin through: back to the floor
  EXPECT_EQ(s.budget(), microseconds(100));
}

TEST(AdaptiveSpin, CapZeroOrBelowTheFloorMeansAFixedSpin) {
  AdaptiveSpin fixed(100, 0);
  fixed.learn(microseconds(50), true);
  EXPECT_EQ(fixed.budget(), microseconds(100));
  fixed.learn(microseconds(90), true);
  EXPECT_EQ(fixed.budget(), microseconds(100));
  fixed.learn(microseconds(1000), true);
  EXPECT_EQ(fixed.budget(), microseconds(100));
}

}  // namespace
}  // namespace joule::engine
