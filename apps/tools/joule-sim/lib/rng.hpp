// Seeded randomness with the same sequence on every platform: the standard
// engines are portable, the standard distributions are not.
#pragma once

#include <cstdint>
#include <random>

namespace joule::sim {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}
  double uniform() { return double(engine_() >> 11) * 0x1p-53; }  // [0, 1)
  std::uint64_t below(std::uint64_t n) { return n ? engine_() % n : 0; }

 private:
  std::mt19937_64 engine_;
};

}  // namespace joule::sim
