// The CUDA GPUs joule's tasks run on (docs/offload-cuda.md, "CUDA tasks and
// their data"): opened lazily (the first CUDA task or joule::cuda_devices())
// or when the runtime starts with JOULE_CUDA=required; one Coherence per GPU
// (the card keeps its own); a polling service on the engine that runs the
// GPUs' completions (Device::poll_completions) from idle workers and at task
// boundaries; kept across runtime restarts with the same settings, as the
// card; their clocks restored when the runtime stops; closed at exit after
// the results came home.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "coherence.hpp"
#include "config.hpp"
#include "cuda_device.hpp"
#include "device.hpp"
#include "gpu_meter.hpp"
#include "observer.hpp"

namespace joule::card_tasks {

struct Gpu {
  cuda::CudaDeviceInfo info;
  std::unique_ptr<offload::Device> device;
  std::unique_ptr<cuda::GpuMeter> clocks;  // SM clock control, restored at stop
  offload::Coherence coherence;            // which copy of its regions is current
  std::atomic<std::uint64_t> tasks{0};
  // The last trace sample (gpu_trace.cpp; written by the polling service only).
  std::uint64_t traced_ns = 0;
  double traced_joules = 0;
  std::string name() const { return "GPU " + std::to_string(info.index); }
};

// What the report and joule::cuda_devices() show of one GPU.
struct GpuStatus {
  cuda::CudaDeviceInfo info;
  offload::DeviceEnergy energy;
  offload::CoherenceStats coherence;
  std::uint64_t tasks = 0;
  int sm_clock_mhz = 0;
  std::string meter;  // GpuMeter::source()
};

// An observer factory (api's wiring, after start_card): takes the run's
// CudaSettings; closes GPUs opened with other settings; opens them now with
// JOULE_CUDA=required, throwing joule::error with the probe's reason when
// there is none. Returns the report's observer with JOULE_REPORT=1, else none
// (host tasks stay unobserved).
std::unique_ptr<core::Observer> start_gpus(const core::Config& cfg);
std::unique_ptr<core::Observer> make_gpu_report();  // gpu_report.cpp

// GPUs open now, without opening them (the hooks' fast path: one relaxed
// load when none is open); gpu(i) for i < open_gpu_count().
int open_gpu_count() noexcept;
Gpu& open_gpu(int i) noexcept;
// Opens the GPUs if not yet; *why (if given) says why there is none.
int open_gpus(std::string* why);
// The GPU a CUDA task names, with its completions polled by the engine
// from now on; throws joule::error saying why not and the allowed values.
Gpu& gpu_for_task(int device_num);

std::vector<GpuStatus> gpu_statuses();  // the open GPUs (opens none)
std::vector<int> gpu_sm_clocks(int device_num);
void set_gpu_sm_clock(int device_num, int mhz);
// A trace sample of GPU `index`'s power, energy and SM clock, when tracing
// and at most every few milliseconds (gpu_trace.cpp; the polling service).
void trace_gpu_sample(int index, Gpu& g) noexcept;
// After the runtime stopped (results already home): clocks restored.
void gpus_after_stop() noexcept;

}  // namespace joule::card_tasks
