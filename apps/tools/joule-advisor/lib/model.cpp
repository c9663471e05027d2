#include "model.hpp"

#include <algorithm>
#include <cmath>

namespace joule::advisor {

Shape shape_of(const offload::CardTopology& topo, int threads, offload::Affinity placement) {
  const auto map = offload::place_threads(topo, threads, {placement, 0, 0});
  const std::vector<int> per_core = offload::threads_per_core(topo, map);
  Shape s;
  s.threads = threads;
  for (int n : per_core) {
    s.cores += n > 0;
    s.busiest = std::max(s.busiest, n);
  }
  s.load.assign(s.busiest + 1, 0);
  for (int n : per_core) ++s.load[n];
  int shared = 0;
  for (int t = 0; t + 1 < threads; ++t) shared += map[t].core == map[t + 1].core;
  s.contiguity = threads > 1 ? static_cast<double>(shared) / (threads - 1) : 0;
  return s;
}

Prediction predict(const DeviceModel& m, const Shape& s, double freq_ghz) {
  const TimeParams& p = m.time;
  const double rel_f = freq_ghz / m.f_ref_ghz;
  const double load = p.queue * s.cores / m.topology.core_count();
  const double intra = p.intra * (s.busiest - 1);
  const double inter = p.mem * rel_f * (1 - p.locality * s.contiguity) / (1 - load);
  Prediction out;
  out.time_s = p.work_cycles / s.threads * (1 + std::max(intra, inter)) / (freq_ghz * 1e9);
  const PowerParams& w = m.power;
  out.power_w = w.idle_w + (w.core_w * s.cores + w.thread_w * s.threads) * std::pow(rel_f, w.gamma);
  out.energy_j = out.power_w * out.time_s;
  return out;
}

}  // namespace joule::advisor
