#include "noise_model.hpp"

#include <cmath>

namespace joule::sim {

NoiseModel::NoiseModel(const NoiseSpec& spec, int cores) : spec_(spec) {
  noisy_.assign(std::size_t(cores), spec_.cores.empty());
  for (int c : spec_.cores)
    if (c >= 0 && c < cores) noisy_[std::size_t(c)] = true;
  // Distinct, well-separated streams per core from one seed.
  for (int c = 0; c < cores; ++c)
    rng_.emplace_back(spec_.seed * 0x9E3779B97F4A7C15ULL + std::uint64_t(c) + 1);
}

double NoiseModel::draw(int core) {
  if (!active() || !noisy_[std::size_t(core)]) return 0;
  auto& rng = rng_[std::size_t(core)];
  // Two numbers per draw whatever the outcome, so the streams stay aligned.
  const double hit = rng.uniform(), u = rng.uniform();
  return hit < spec_.p ? delay_s(u) : 0;
}

double NoiseModel::delay_s(double u) const {
  switch (spec_.distribution) {
    case NoiseSpec::Distribution::bursts:
      return spec_.delay_us * 1e-6;
    case NoiseSpec::Distribution::exponential:
      return -spec_.mean_us * 1e-6 * std::log1p(-u);
    case NoiseSpec::Distribution::uniform:
      return spec_.max_us * 1e-6 * u;
    case NoiseSpec::Distribution::none:
      break;
  }
  return 0;
}

double NoiseModel::mean_s() const {
  switch (spec_.distribution) {
    case NoiseSpec::Distribution::bursts:
      return spec_.p * spec_.delay_us * 1e-6;
    case NoiseSpec::Distribution::exponential:
      return spec_.p * spec_.mean_us * 1e-6;
    case NoiseSpec::Distribution::uniform:
      return spec_.p * spec_.max_us * 0.5e-6;
    case NoiseSpec::Distribution::none:
      break;
  }
  return 0;
}

}  // namespace joule::sim
