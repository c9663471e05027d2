#include "core_mask.hpp"

#include <algorithm>
#include <cstdio>

namespace joule::energy {
namespace {

struct Cost {
  double energy, time;
};

Cost model(const MaskInput& in, int n, std::size_t level) {
  const double fmax = in.pstates.back(), f = in.pstates[level];
  const double busy = in.parallelism * fmax / f;
  const double t = std::max(1.0, busy / n);
  const double e = busy * in.busy_watts[level] + (n * t - busy) * in.idle_watts +
                   (in.cores - n) * t * in.parked_watts;
  return {e, t};
}

}  // namespace

MaskChoice choose_core_mask(const MaskInput& in) {
  MaskChoice best;
  best.cores = in.cores;
  if (in.cores <= 0 || in.pstates.empty() || in.busy_watts.size() != in.pstates.size()) {
    best.why = "no model: keep every core";
    return best;
  }
  const std::size_t top = in.pstates.size() - 1;
  best.level = int(top);
  const Cost base = model(in, in.cores, top);
  double best_e = base.energy;
  Cost chosen = base;
  for (int n = 1; n <= in.cores; ++n) {
    for (std::size_t l = top + 1; l-- > 0;) {  // high f first: ties keep the faster
      const Cost c = model(in, n, l);
      if (c.time > 1 + in.time_budget) continue;
      if (c.energy < best_e - 1e-9 * base.energy || (n < best.cores && c.energy <= best_e)) {
        best_e = c.energy, chosen = c, best.cores = n, best.level = int(l);
      }
    }
  }
  best.energy_ratio = base.energy > 0 ? chosen.energy / base.energy : 1.0;
  best.time_ratio = chosen.time / base.time;
  char buf[128];
  std::snprintf(buf, sizeof buf, "%d cores at %.2f GHz: modelled energy x%.3f, time x%.3f",
                best.cores, in.pstates[std::size_t(best.level)] / 1e6, best.energy_ratio,
                best.time_ratio);
  best.why = buf;
  return best;
}

}  // namespace joule::energy
