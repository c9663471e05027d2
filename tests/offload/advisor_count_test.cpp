// joule-advisor's configuration counts: mixed node types (Ramapantulu's
// thesis, §1.2) and the card's distinct (threads, placement) configurations
// (§5.1).
#include <gtest/gtest.h>

#include <cstdio>
#include <stdexcept>
#include <string>

#include "configs.hpp"

namespace ja = joule::advisor;

TEST(AdvisorCount, MixedNodeTypes) {
  EXPECT_EQ(ja::count_mixed({54, 60, 72}), 244914u);  // the thesis's grid
  EXPECT_EQ(ja::count_mixed({54, 60, 72}),
            54u * 60 * 72 + 54 * 60 + 60 * 72 + 72 * 54 + 54 + 60 + 72);
  EXPECT_EQ(ja::count_mixed({16}), 16u);
  EXPECT_EQ(ja::count_mixed({16, 16}), 17u * 17 - 1);
  EXPECT_EQ(ja::count_mixed({}), 0u);
  EXPECT_EQ(ja::count_mixed({0, 5}), 5u);
  EXPECT_THROW(ja::count_mixed({-1}), std::invalid_argument);
  EXPECT_THROW(ja::count_mixed({1LL << 40, 1LL << 40}), std::overflow_error);
}

TEST(AdvisorCount, PhiHas477DistinctConfigurations) {
  ja::DeviceModel m;  // 60 × 4, locality off: balanced predicts as scatter
  m.freqs_ghz = {1.053};
  m.f_ref_ghz = 1.053;
  EXPECT_EQ(ja::enumerate_configs({m}).size(), 477u);
  m.freqs_ghz = {0.8, 1.053};
  EXPECT_EQ(ja::enumerate_configs({m}).size(), 2 * 477u);
}

TEST(AdvisorCount, CommandLine) {
  FILE* p = popen(JOULE_ADVISOR_EXE " count 54 60 72", "r");
  char buf[64] = {};
  ASSERT_NE(fgets(buf, sizeof buf, p), nullptr);
  EXPECT_EQ(pclose(p), 0);
  EXPECT_EQ(std::string(buf), "244914\n");
}
