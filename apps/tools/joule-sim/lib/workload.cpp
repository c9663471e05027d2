#include "workload.hpp"
#include "text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace joule::sim {
namespace {

// Piecewise-linear max/min ratio over the run's fraction (Padoin's EnergyLB
// thesis, §5.2-5.3).
// ondes3d: FG, 24 calls: 1.5x, 1.7x at call 2, 2.1x at call 8, falling from
// call 10, stable by call 14 (the stable level is not given: 1.6x, ours).
// ondes3d-cg: CG, 24 calls: 1.16x, above 4x at calls 4, 5 and 8, below otherwise.
// lulesh: CG, 1.45x rising to 5.21x.
std::vector<double> preset(const std::string& shape) {
  if (shape == "ondes3d") return {0, 1.5, 0.08, 1.7, 0.32, 2.1, 0.4, 2.1, 0.56, 1.6, 1, 1.6};
  if (shape == "ondes3d-cg")
    return {0, 1.16, 0.12, 3.0, 0.16, 4.3, 0.2, 4.3, 0.24, 3.6, 0.32, 4.3, 0.36, 3.2, 1, 3.0};
  return {0, 1.45, 1, 5.21};  // lulesh
}

}  // namespace

Workload::Workload(const WorkloadSpec& spec, int pes, int cores_per_chip)
    : spec_(spec), pes_(pes), cores_per_chip_(cores_per_chip), rng_(spec.seed) {
  if (spec_.kind == "static") make_static();
  if (spec_.kind == "lb_test") make_lb_test();
  if (spec_.kind == "stencil") make_even(16);
  if (spec_.kind == "dynamic") make_even(4), dynamic_ = true;
  if (spec_.kind == "btmz") make_btmz();
  if (spec_.kind == "pils") make_pils();
  for (std::size_t i = 0; i < objects_.size(); ++i) objects_[i].key = i;
  const bool scaled = spec_.kind == "lb_test" || spec_.kind == "stencil" || dynamic_;
  if (scaled) shuffle_units(spec_.per_chip ? pes_ / cores_per_chip_ : pes_);
}

void Workload::make_static() {
  const auto& l = spec_.loads;
  const int n = spec_.objects > 0 ? spec_.objects : int(std::max<std::size_t>(l.size(), pes_));
  if (int(l.size()) == pes_ && n % pes_ == 0) {
    const int k = n / pes_;  // objects per PE, each an equal share of its load
    for (int p = 0; p < pes_; ++p)
      for (int j = 0; j < k; ++j) objects_.push_back({0, p}), base_.push_back(l[p] / k);
    return;
  }
  if (int(l.size()) != n)
    throw ConfigError("workload.loads: " + std::to_string(l.size()) + " loads for " +
                      std::to_string(pes_) + " PEs and " + std::to_string(n) +
                      " objects; give one per PE (objects a multiple of PEs) or one per object");
  base_ = l;
  place_block();
}

void Workload::make_lb_test() {
  const int n = spec_.objects > 0 ? spec_.objects : pes_ * 8;
  for (int i = 0; i < n; ++i) {
    const double u = rng_.uniform();
    base_.push_back(spec_.min_s + (spec_.max_s - spec_.min_s) * u * u * u * u);
  }
  place_block();
}

// Equal objects (total_s per PE per step) with fixed +-noise each.
void Workload::make_even(int per_pe_default) {
  const int n = spec_.objects > 0 ? spec_.objects : pes_ * per_pe_default;
  for (int i = 0; i < n; ++i)
    base_.push_back(spec_.total_s * pes_ / n * (1 + spec_.noise * (2 * rng_.uniform() - 1)));
  place_block();
}

// NPB-MZ BT: zone widths grow geometrically in x and in y so that the
// largest zone is zone_ratio times the smallest; zones in order, blocked
// over ranks (PEs) or bin-packed (zone_map). Work is proportional to zone
// area; total_s per step.
void Workload::make_btmz() {
  int nx = 4, ny = 4;
  if (std::sscanf(spec_.zones.c_str(), "%dx%d", &nx, &ny) != 2 || nx < 1 || ny < 1)
    throw ConfigError("workload.zones: '" + core::escape_text(spec_.zones) +
                      "' is not NxM (e.g. 4x4)");
  const double q = std::sqrt(spec_.zone_ratio);  // per dimension
  auto width = [&](int i, int n) { return n > 1 ? std::pow(q, double(i) / (n - 1)) : 1.0; };
  double total = 0;
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x)
      base_.push_back(width(x, nx) * width(y, ny)), total += base_.back();
  for (double& b : base_) b *= spec_.total_s / total;
  if (spec_.zone_map == "binpack") return place_binpack();
  place_block();
}

// NPB's own zone mapping: the largest zone first, each to the least loaded
// PE (ties: the lowest). Objects stay in zone order.
void Workload::place_binpack() {
  std::vector<std::size_t> order(base_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return base_[a] > base_[b]; });
  std::vector<double> pe_load(std::size_t(pes_), 0.0);
  objects_.assign(base_.size(), SimObject{});
  for (std::size_t i : order) {
    const auto pe = std::size_t(std::min_element(pe_load.begin(), pe_load.end()) - pe_load.begin());
    objects_[i].pe = int(pe);
    pe_load[pe] += base_[i];
  }
}

// PILS: a split of total_s over ranks (loads are relative), 1/grain parallel
// regions per rank, each an object.
void Workload::make_pils() {
  auto split = spec_.loads.empty() ? std::vector<double>(pes_, 1.0) : spec_.loads;
  if (int(split.size()) != pes_)
    throw ConfigError("workload.loads: pils needs one share per PE (" + std::to_string(pes_) + ")");
  double sum = 0;
  for (double s : split) sum += s;
  const int k = std::max(1, int(std::lround(1 / spec_.grain)));
  for (int p = 0; p < pes_; ++p)
    for (int j = 0; j < k; ++j)
      objects_.push_back({0, p}), base_.push_back(spec_.total_s * split[p] / sum / k);
}

void Workload::place_block() {
  const int n = int(base_.size());
  for (int i = 0; i < n; ++i) objects_.push_back({0, int(std::int64_t(i) * pes_ / n)});
}

// Which unit is heaviest is a seeded shuffle: 0 .. 1 positions.
void Workload::shuffle_units(int units) {
  position_.resize(std::size_t(units));
  for (int u = 0; u < units; ++u) position_[u] = units > 1 ? double(u) / (units - 1) : 1.0;
  for (int u = units - 1; u > 0; --u) std::swap(position_[u], position_[rng_.below(u + 1)]);
}

std::vector<double> Workload::profile_points() const {
  return spec_.shape == "points" ? spec_.profile : preset(spec_.shape);
}

double Workload::ratio_at(int step) const {
  if (!dynamic_) return spec_.kind == "static" || position_.empty() ? 1.0 : spec_.imbalance;
  const auto pts = profile_points();
  const double t = spec_.steps > 1 ? double(step - 1) / (spec_.steps - 1) : 0;
  if (pts.size() < 2) return 1;
  for (std::size_t i = 2; i + 1 < pts.size(); i += 2) {
    if (t > pts[i]) continue;
    const double f0 = pts[i - 2], r0 = pts[i - 1], f1 = pts[i], r1 = pts[i + 1];
    return f1 > f0 ? r0 + (r1 - r0) * (t - f0) / (f1 - f0) : r1;
  }
  return pts.back();
}

void Workload::step_work(int step, std::vector<double>& work) {
  work.resize(base_.size());
  if (spec_.drift > 0)
    for (double& b : base_) b *= std::exp(spec_.drift * (2 * rng_.uniform() - 1));
  const double r = ratio_at(step);
  for (std::size_t i = 0; i < base_.size(); ++i) {
    double scale = 1;
    if (!position_.empty()) {
      // Scaled by where the object started: the imbalance lives in the data.
      const int pe = objects_[i].pe;
      const double pos = position_[std::size_t(spec_.per_chip ? pe / cores_per_chip_ : pe)];
      scale = std::pow(r, pos - 1);
    }
    work[i] = base_[i] * scale;
  }
}

}  // namespace joule::sim
