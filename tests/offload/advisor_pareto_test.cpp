// The Pareto front and the deadline / budget queries on hand-made sets.
#include <gtest/gtest.h>

#include <vector>

#include "pareto.hpp"

namespace ja = joule::advisor;

TEST(AdvisorPareto, DominatedPointsExcluded) {
  const std::vector<ja::TimeEnergy> p = {{1, 10}, {2, 8}, {3, 9},  // (3,9) dominated by (2,8)
                                         {4, 5},  {2, 9},  // (2,9): same time as (2,8), more energy
                                         {5, 5},           // same energy as (4,5), slower
                                         {6, 1}};
  EXPECT_EQ(ja::pareto_front(p), (std::vector<size_t>{0, 1, 3, 6}));
}

TEST(AdvisorPareto, ExactTiesAreAllKept) {
  const std::vector<ja::TimeEnergy> p = {{2, 3}, {1, 5}, {2, 3}, {3, 3}};
  EXPECT_EQ(ja::pareto_front(p), (std::vector<size_t>{1, 0, 2}));
}

TEST(AdvisorPareto, SinglePointAndEmpty) {
  EXPECT_EQ(ja::pareto_front({{1, 1}}), (std::vector<size_t>{0}));
  EXPECT_TRUE(ja::pareto_front({}).empty());
  // One point better in both: the front is that point alone.
  EXPECT_EQ(ja::pareto_front({{3, 3}, {1, 1}, {2, 2}}), (std::vector<size_t>{1}));
}

TEST(AdvisorPareto, DeadlineAndBudget) {
  const std::vector<ja::TimeEnergy> p = {{1, 10}, {2, 8}, {4, 5}, {4, 5}, {6, 1}};
  EXPECT_EQ(ja::best_under_deadline(p, 4.5), 2u);  // least energy in time, first of a tie
  EXPECT_EQ(ja::best_under_deadline(p, 1), 0u);    // the deadline itself is met
  EXPECT_FALSE(ja::best_under_deadline(p, 0.5));
  EXPECT_EQ(ja::best_under_budget(p, 8), 1u);
  EXPECT_EQ(ja::best_under_budget(p, 100), 0u);
  EXPECT_FALSE(ja::best_under_budget(p, 0.5));
  // Ramapantulu's BT (§5.4): 45.2 s / 192 kJ vs 45.8 s / 166 kJ; a 46 s deadline
  // picks the cheaper.
  EXPECT_EQ(ja::best_under_deadline({{45.2, 192}, {45.8, 166}}, 46), 1u);
}
