#include "model.hpp"

#include <algorithm>
#include <cmath>

namespace joule::advisor {

Shape shape_of(const card_affinity::CardTopology& topo, int threads,
               card_affinity::Affinity placement) {
  const auto map = card_affinity::place_threads(topo, threads, {placement, 0, 0});
  const std::vector<int> per_core = card_affinity::threads_per_core(topo, map);
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

const char* contention_name(Contention c) {
  return c == Contention::overlap ? "overlap" : "serial";
}

namespace {

// Cross-core contention q(n) with n cores busy: memory-controller queueing.
double queueing(const DeviceModel& m, const Shape& s, int busy, double rel_f) {
  const TimeParams& p = m.time;
  const double load = p.queue * busy / m.topology.core_count();
  return p.mem * std::pow(rel_f, p.stall_freq_exp) * (1 - p.locality * s.contiguity) / (1 - load);
}

// Cycles the critical path spends per work cycle of one thread.
double stretch(const DeviceModel& m, const Shape& s, double rel_f) {
  const double a = m.time.intra;
  if (m.time.contention == Contention::overlap)
    return 1 + std::max(a * (s.busiest - 1), queueing(m, s, s.cores, rel_f));
  // serial: walk the cores' loads upwards; cores with load k are done once
  // W/t·(1 + a·(k−1)) cycles are, and the queue shrinks as they leave.
  double total = 0, done = 0;
  int busy = s.cores;
  for (size_t k = 1; k < s.load.size(); ++k) {
    if (s.load[k] == 0) continue;
    const double cycles = 1 + a * double(k - 1);
    total += (cycles - done) * (1 + queueing(m, s, busy, rel_f));
    done = cycles;
    busy -= s.load[k];
  }
  return total;
}

}  // namespace

Prediction predict(const DeviceModel& m, const Shape& s, double freq_ghz) {
  const double rel_f = freq_ghz / m.f_ref_ghz;
  Prediction out;
  out.time_s = m.time.work_cycles / s.threads * stretch(m, s, rel_f) / (freq_ghz * 1e9);
  const PowerParams& w = m.power;
  out.power_w = w.idle_w + (w.core_w * s.cores + w.thread_w * s.threads) * std::pow(rel_f, w.gamma);
  out.energy_j = out.power_w * out.time_s;
  return out;
}

}  // namespace joule::advisor
