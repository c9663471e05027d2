// What the platform layer puts in a trace (JOULE_TRACE): frequency changes
// (emitted by Dvfs::set_level), each worker's starting frequency, and power
// and temperature samples. All of it goes through trace_api.hpp, so none of
// it costs more than a load and a branch when tracing is off.
//
// The trace observer starts after this layer's on_runtime_start and stops
// after its on_runtime_stop: what Platform::begin sets up is not traced yet (hence
// the lazy starting frequency), and the final sample of end() still is.
#include <algorithm>
#include <cmath>

#include "sensors.hpp"
#include "trace_api.hpp"
#include "worker_accounts.hpp"

namespace joule::platform {

namespace tr = core::trace;

// Frequency counters are drawn on the rows of the workers' real CPUs; with
// a synthetic topology, a model PU stands for the workers mapped to it.
void WorkerAccounts::trace_cpus() {
  std::vector<std::vector<int>> real_of;
  for (const auto& s : slots_) {
    if (s->cpu < 0 || s->trace_cpu < 0) continue;
    if (real_of.size() <= std::size_t(s->cpu)) real_of.resize(std::size_t(s->cpu) + 1);
    auto& v = real_of[std::size_t(s->cpu)];
    if (std::find(v.begin(), v.end(), s->trace_cpu) == v.end()) v.push_back(s->trace_cpu);
  }
  freq_.backend().set_trace_cpus(std::move(real_of));
}

// On the worker's thread, at its first task or idle period: the frequency
// it starts at (a backend that controls nothing has none to show).
void WorkerAccounts::trace_first(WorkerSlot& s) const noexcept {
  s.traced = true;
  const std::uint32_t khz = freq_.backend().frequency(s.cpu);
  if (khz && s.trace_cpu >= 0) tr::emit_counter("frequency_mhz", khz / 1000.0, s.trace_cpu);
}

// Average power since the previous sample (measured where a meter is, else
// modelled), and each chip's temperature: one chip is the package (cpu -1);
// with several, a chip's curve is named by its first worker's CPU.
void Sensors::trace_sample(std::uint64_t now, const EnergyReading& r) {
  if (now < traced_ns_ + 1'000'000) return;  // shorter intervals give noise, not power
  const double joules = r.total_joules();
  tr::emit_counter("power_w", (joules - traced_joules_) / (double(now - traced_ns_) * 1e-9));
  traced_ns_ = now;
  traced_joules_ = joules;
  for (std::size_t c = 0; c < last_temp_.size(); ++c) {
    if (std::isnan(last_temp_[c])) continue;
    if (last_temp_.size() == 1) {
      tr::emit_counter("temperature_c", last_temp_[c]);
      continue;
    }
    for (const auto& s : workers_.slots())
      if (s->chip == int(c) && s->trace_cpu >= 0) {
        tr::emit_counter("temperature_c", last_temp_[c], s->trace_cpu);
        break;
      }
  }
}

}  // namespace joule::platform
