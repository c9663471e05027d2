#include "pareto.hpp"

#include <algorithm>
#include <numeric>

namespace joule::advisor {

std::vector<size_t> pareto_front(const std::vector<TimeEnergy>& p) {
  std::vector<size_t> order(p.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return p[a].time != p[b].time ? p[a].time < p[b].time : p[a].energy < p[b].energy;
  });
  // Sweep by time: a point survives when it is cheaper than everything
  // faster, or is an exact copy of the last survivor.
  std::vector<size_t> front;
  for (size_t i : order) {
    if (front.empty() || p[i].energy < p[front.back()].energy) {
      front.push_back(i);
    } else if (p[i].energy == p[front.back()].energy && p[i].time == p[front.back()].time) {
      front.push_back(i);
    }
  }
  return front;
}

std::optional<size_t> best_under_deadline(const std::vector<TimeEnergy>& p, double deadline) {
  std::optional<size_t> best;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i].time > deadline) continue;
    if (!best || p[i].energy < p[*best].energy ||
        (p[i].energy == p[*best].energy && p[i].time < p[*best].time))
      best = i;
  }
  return best;
}

std::optional<size_t> best_under_budget(const std::vector<TimeEnergy>& p, double budget) {
  std::optional<size_t> best;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i].energy > budget) continue;
    if (!best || p[i].time < p[*best].time ||
        (p[i].time == p[*best].time && p[i].energy < p[*best].energy))
      best = i;
  }
  return best;
}

}  // namespace joule::advisor
