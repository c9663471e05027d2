#include "configs.hpp"

#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <tuple>

namespace joule::advisor {

std::vector<Config> enumerate_configs(const std::vector<DeviceModel>& models) {
  constexpr card_affinity::Affinity kAll[] = {card_affinity::Affinity::compact,
                                              card_affinity::Affinity::scatter,
                                              card_affinity::Affinity::balanced};
  std::vector<Config> out;
  for (const DeviceModel& m : models) {
    std::set<std::tuple<double, int, std::vector<int>, long>> seen;
    for (int t = 1; t <= m.topology.pu_count(); ++t)
      for (card_affinity::Affinity a : kAll) {
        if (a == card_affinity::Affinity::balanced && m.topology.uniform_pus_per_core() == 0)
          continue;
        const Shape s = shape_of(m.topology, t, a);
        // Contiguity only changes a prediction when the locality term is on.
        const long kappa = m.time.locality > 0 ? std::lround(s.contiguity * 1e6) : 0;
        for (double f : m.freqs_ghz) {
          if (!seen.insert({f, t, s.load, kappa}).second) continue;
          out.push_back({m.device, a, s, f, predict(m, s, f)});
        }
      }
  }
  return out;
}

std::uint64_t count_mixed(const std::vector<long long>& n) {
  std::uint64_t product = 1;
  for (long long v : n) {
    if (v < 0)
      throw std::invalid_argument("a node type cannot have " + std::to_string(v) +
                                  " configurations (use 0 or more)");
    const std::uint64_t factor = static_cast<std::uint64_t>(v) + 1;
    if (product > std::numeric_limits<std::uint64_t>::max() / factor)
      throw std::overflow_error("the count does not fit in 64 bits");
    product *= factor;
  }
  return product - 1;
}

}  // namespace joule::advisor
