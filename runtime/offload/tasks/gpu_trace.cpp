// GPU samples in traces (JOULE_TRACE; docs/observability.md): while GPUs are
// open and a trace is being written, the GPUs' polling service samples each
// GPU's power, energy counter and SM clock, at most every kSampleNs, as
// counter tracks "gpuN_power_w", "gpuN_energy_j" (joules since the GPU was
// opened) and "gpuN_sm_clock_mhz" beside the CPUs' "power_w" and
// "frequency_mhz". The power is the energy counter's rate where NVML reads
// the counter, else NVML's instantaneous reading. Only one thread runs the
// polling services at a time, so the per-GPU state needs no lock.
#include <array>
#include <chrono>

#include "gpu_devices.hpp"
#include "trace_api.hpp"

namespace joule::card_tasks {
namespace {

namespace tr = core::trace;

// NVML's counter and power readings update every few milliseconds: a
// shorter interval gives noise, not power (as the CPUs' samples).
constexpr std::uint64_t kSampleNs = 5'000'000;
constexpr std::size_t kTracedGpus = 8;  // counter names are string literals

struct Names {
  const char* power;
  const char* energy;
  const char* clock;
};
#define JOULE_GPU_NAMES(n) \
  { "gpu" #n "_power_w", "gpu" #n "_energy_j", "gpu" #n "_sm_clock_mhz" }
constexpr std::array<Names, kTracedGpus> kNames = {
    {JOULE_GPU_NAMES(0), JOULE_GPU_NAMES(1), JOULE_GPU_NAMES(2), JOULE_GPU_NAMES(3),
     JOULE_GPU_NAMES(4), JOULE_GPU_NAMES(5), JOULE_GPU_NAMES(6), JOULE_GPU_NAMES(7)}};
#undef JOULE_GPU_NAMES

std::uint64_t now_ns() {
  return std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now().time_since_epoch())
                           .count());
}

}  // namespace

void trace_gpu_sample(int index, Gpu& g) noexcept {
  if (!tr::enabled() || index < 0 || std::size_t(index) >= kTracedGpus) return;
  const std::uint64_t now = now_ns();
  if (g.traced_ns != 0 && now < g.traced_ns + kSampleNs) return;
  const Names& n = kNames[std::size_t(index)];
  try {
    const offload::DeviceEnergy e = g.device->energy();
    if (e.measured) {
      tr::emit_counter(n.energy, e.joules);
      if (g.traced_ns != 0)
        tr::emit_counter(n.power,
                         (e.joules - g.traced_joules) / (double(now - g.traced_ns) * 1e-9));
      else if (e.watts > 0)
        tr::emit_counter(n.power, e.watts);
      g.traced_joules = e.joules;
    } else if (e.watts > 0) {
      tr::emit_counter(n.power, e.watts);
    }
    if (const int mhz = g.clocks->sm_clock_mhz(); mhz > 0) tr::emit_counter(n.clock, mhz);
  } catch (...) {  // a reading that failed is a gap in the track, not an error of the run
  }
  g.traced_ns = now;
}

}  // namespace joule::card_tasks
