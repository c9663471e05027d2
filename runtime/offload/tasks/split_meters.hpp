// What the work splitter measures over one iteration (docs/offload-gpu-energy.md,
// "Splitting work between the CPUs and a GPU"): the GPU's energy counter
// through NVML (gpu_meter.hpp) and the CPUs' through the platform's meter
// (RAPL, PAPI or jouled; platform.hpp). Either may be missing: the GPU
// without NVML, the CPUs where the platform only models energy; the
// splitter then keeps that device's power model, and source() says which.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "gpu_meter.hpp"

namespace joule::card_tasks {

// Joules over one iteration; nullopt: not measured.
struct SplitEnergy {
  std::optional<double> cpu, gpu;
};

// The splitter's view of a meter another owner keeps (the GPU registry's,
// gpu_devices.hpp): reads and clock changes go to `shared`; restore() puts
// back the clock it found instead of undoing every change (the owner
// restores those when the runtime stops).
std::unique_ptr<cuda::GpuMeter> borrow_gpu_meter(cuda::GpuMeter& shared);

class SplitMeters {
 public:
  // gpu: the GPU's meter (null when the second device is the card).
  explicit SplitMeters(std::unique_ptr<cuda::GpuMeter> gpu);
  ~SplitMeters();

  // The counters now: an iteration starts.
  void start();
  // Joules since start(); nothing when start() was not called since the last read.
  SplitEnergy read();
  // "gpu: nvml, cpu: rapl", "gpu: none (<why>), cpu: model", "card: model, cpu: ...".
  std::string source() const;
  cuda::GpuMeter* gpu() const { return gpu_.get(); }

 private:
  std::optional<double> cpu_now() const;
  std::optional<double> gpu_now() const;

  std::unique_ptr<cuda::GpuMeter> gpu_;
  bool started_ = false;
  std::optional<double> cpu0_, gpu0_;
};

}  // namespace joule::card_tasks
