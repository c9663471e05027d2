#include "power_model.hpp"

#include <algorithm>

namespace joule::platform {

PowerModel::PowerModel(std::vector<std::pair<double, double>> points, double idle_w,
                       double uncore_w)
    : points_(std::move(points)), idle_w_(idle_w), uncore_w_(uncore_w) {
  std::sort(points_.begin(), points_.end());
  if (points_.empty()) points_.emplace_back(1.0, 0.0);
}

double PowerModel::busy_watts(std::uint32_t khz) const {
  if (points_.size() == 1) return points_.front().second;
  const double f = double(khz) * 1e-6;
  std::size_t i = 0;  // segment [i, i+1]; the end segments extrapolate
  while (i + 2 < points_.size() && f > points_[i + 1].first) ++i;
  const auto [f0, p0] = points_[i];
  const auto [f1, p1] = points_[i + 1];
  const double c0 = f0 * f0 * f0, c1 = f1 * f1 * f1, c = f * f * f;
  return std::max(0.0, p0 + (p1 - p0) * (c - c0) / (c1 - c0));
}

double PowerModel::core_joules(const std::vector<std::uint32_t>& table_khz,
                               const std::vector<std::uint64_t>& active_ns,
                               std::uint64_t sleep_ns) const {
  double j = idle_w_ * double(sleep_ns) * 1e-9;
  for (std::size_t i = 0; i < active_ns.size() && i < table_khz.size(); ++i)
    j += busy_watts(table_khz[i]) * double(active_ns[i]) * 1e-9;
  return j;
}

}  // namespace joule::platform
