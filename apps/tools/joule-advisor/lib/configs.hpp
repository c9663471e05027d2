// The configuration space (Ramapantulu's thesis, §1.2, §5.1): for each fitted
// device, every thread count t × placement × frequency, predicted with the
// model. Placements with the same threads-per-core counts (and, when the
// locality term is on, the same contiguity) are listed once per frequency, as
// the thesis counts 477 (not 480) for 60 × 4 × {compact, scatter}.
#pragma once

#include <cstdint>
#include <vector>

#include "model.hpp"

namespace joule::advisor {

struct Config {
  Device device = Device::card;
  card_affinity::Affinity placement = card_affinity::Affinity::compact;
  Shape shape;
  double freq_ghz = 0;
  Prediction predicted;
};

std::vector<Config> enumerate_configs(const std::vector<DeviceModel>& models);

// Mixed configurations of node types with n[i] configurations each: every
// type is absent or takes one of its n[i]; the empty mix is excluded, so
// ∏(1 + n_i) − 1 (the thesis's 244,914 for 54, 60 and 72). Throws
// std::overflow_error past 2^64 − 1 and std::invalid_argument for n[i] < 0.
std::uint64_t count_mixed(const std::vector<long long>& n);

}  // namespace joule::advisor
