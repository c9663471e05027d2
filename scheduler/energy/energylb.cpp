#include "energylb.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace joule::energy {
namespace {

// Float slack when comparing a target with a table entry: 1 Hz.
constexpr double kEpsKhz = 1e-3;

double core_ghz(const Observation& obs, const CoreView& c) {
  const auto& d = obs.domains[std::size_t(c.domain)];
  return d.khz() / 1e6;
}

}  // namespace

std::vector<double> core_loads(const Observation& obs, LoadNorm norm) {
  std::vector<double> w(obs.cores.size(), 0.0);
  for (std::size_t i = 0; i < obs.cores.size(); ++i) {
    const auto& c = obs.cores[i];
    if (c.parked) continue;
    const double ghz = core_ghz(obs, c);
    w[i] = norm == LoadNorm::work ? c.work_s : (ghz > 0 ? c.busy_s / ghz : 0.0);
  }
  return w;
}

double load_ratio(const std::vector<double>& loads) {
  if (loads.empty()) return 1.0;
  const auto [lo, hi] = std::minmax_element(loads.begin(), loads.end());
  if (*lo <= 0) return std::numeric_limits<double>::infinity();
  return *hi / *lo;
}

double effective_threshold(const Observation& obs, const Options& opt) {
  if (opt.threshold > 0) return opt.threshold;
  double hi = 0, lo = std::numeric_limits<double>::infinity();
  for (const auto& d : obs.domains) {
    if (d.pstates.empty()) continue;
    hi = std::max(hi, double(d.fmax()));
    lo = std::min(lo, double(d.fmin()));
  }
  return hi > 0 && lo > 0 ? hi / lo : 2.0;
}

int quantise_level(const std::vector<std::uint32_t>& pstates, double target_khz, Quantise q) {
  if (pstates.empty()) return 0;
  const int top = int(pstates.size()) - 1;
  int up = 0;  // the lowest P-state at or above the target
  while (up < top && double(pstates[std::size_t(up)]) < target_khz - kEpsKhz) ++up;
  if (q == Quantise::ceil || up == 0) return up;
  const double above = double(pstates[std::size_t(up)]) - target_khz;
  const double below = target_khz - double(pstates[std::size_t(up - 1)]);
  if (above < 0) return up;                      // target above fmax: clamped
  return below < above - kEpsKhz ? up - 1 : up;  // a tie goes up
}

int relative_level(const DomainView& d, double rel, Quantise q) {
  const double target = std::clamp(rel * d.fmax(), double(d.fmin()), double(d.fmax()));
  return quantise_level(d.pstates, target, q);
}

std::vector<int> active_cores(const Observation& obs) {
  std::vector<int> out;
  for (std::size_t i = 0; i < obs.cores.size(); ++i)
    if (!obs.cores[i].parked) out.push_back(int(i));
  return out;
}

Moves run_balancer(const Observation& obs, const Options& opt, std::vector<int> cores) {
  const auto p = equal_problem(obs, std::move(cores));
  if (opt.balancer == Balancer::greedy) return greedy_remap(obs.keys, p);
  if (opt.balancer == Balancer::refine) return refine_remap(obs.keys, p, opt.tolerance);
  if (opt.balancer == Balancer::randcent) return randcent_remap(obs.keys, p, obs.iteration);
  if (opt.balancer == Balancer::partition)
    return partition_remap(obs.keys, obs.edges, p, opt.tolerance);
  return {};
}

std::vector<double> predicted_loads(const Observation& obs, std::vector<double> loads,
                                    const Moves& moves, LoadNorm norm) {
  auto weight = [&](double work, int core) {
    if (norm == LoadNorm::work) return work;
    const auto& d = obs.domains[std::size_t(obs.cores[std::size_t(core)].domain)];
    const double ghz = d.khz() / 1e6;
    return ghz > 0 ? work * (d.fmax() / 1e6) / (ghz * ghz) : 0.0;
  };
  for (const auto& [key, to] : moves) {
    for (const auto& k : obs.keys) {
      if (k.key != key) continue;
      loads[std::size_t(k.core)] =
          std::max(0.0, loads[std::size_t(k.core)] - weight(k.work_s, k.core));
      loads[std::size_t(to)] += weight(k.work_s, to);
      break;
    }
  }
  return loads;
}

std::vector<int> dvfs_levels(const Observation& obs, const std::vector<double>& rel, Quantise q) {
  std::vector<int> out;
  for (const auto& d : obs.domains) {
    double r = -1;
    for (int c : d.cores) r = std::max(r, rel[std::size_t(c)]);
    out.push_back(r < 0 ? d.level : relative_level(d, r, q));
  }
  return out;
}

std::vector<int> top_levels(const Observation& obs) {
  std::vector<int> out;
  for (const auto& d : obs.domains) out.push_back(std::max(0, int(d.pstates.size()) - 1));
  return out;
}

std::string ratio_text(double ratio, double threshold, const char* action) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "ratio %.3g %s %.3g: %s", ratio, ratio >= threshold ? ">=" : "<",
                threshold, action);
  return buf;
}

}  // namespace joule::energy
