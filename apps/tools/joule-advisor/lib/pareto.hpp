// The energy-time Pareto front (Ramapantulu's thesis, Chapter 4) and the two
// queries on it: least energy under a deadline, least time under an energy
// budget.
#pragma once

#include <optional>
#include <vector>

namespace joule::advisor {

struct TimeEnergy {
  double time = 0, energy = 0;
};

// Indexes of the points no other point dominates (another point is at most
// as slow and as costly, and better in one of the two), ordered by time.
// Exact duplicates do not dominate each other: all copies are kept.
std::vector<size_t> pareto_front(const std::vector<TimeEnergy>& points);

// Least energy with time <= deadline (ties: the faster one).
std::optional<size_t> best_under_deadline(const std::vector<TimeEnergy>& points, double deadline);
// Least time with energy <= budget (ties: the cheaper one).
std::optional<size_t> best_under_budget(const std::vector<TimeEnergy>& points, double budget);

}  // namespace joule::advisor
