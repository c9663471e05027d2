// One GPU's energy and clocks through NVML (nvml_meter.cpp), loaded at run
// time with dlopen (no link-time dependency on the driver). NVML's
// documented calls: nvmlDeviceGetTotalEnergyConsumption (mJ since the
// driver loaded, Volta and later), nvmlDeviceGetPowerUsage (mW),
// nvmlDeviceGetSupportedGraphicsClocks, nvmlDeviceSetGpuLockedClocks /
// nvmlDeviceResetGpuLockedClocks (falling back to the application clocks).
// Clock changes need privileges on most drivers: a refusal is reported,
// never fatal. Whatever was changed is undone by restore(), which the
// device calls when it closes (as CPU frequencies are restored at stop).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cuda_settings.hpp"

namespace joule::cuda {

struct GpuClockChange {
  bool ok = false;
  std::string message;  // why not (e.g. "NVML: insufficient permissions (run as root ...)")
};

class GpuMeter {
 public:
  virtual ~GpuMeter() = default;
  // "nvml" when NVML answers for this GPU, else "none: <why>".
  virtual std::string source() const = 0;
  // The GPU's energy counter in joules (monotonic; false: not readable).
  virtual bool energy_joules(double* joules) const = 0;
  virtual bool power_watts(double* watts) const = 0;
  // Supported SM clocks in MHz, highest first (empty: unknown), and now (0: unknown).
  virtual std::vector<int> sm_clocks_mhz() const = 0;
  virtual int sm_clock_mhz() const = 0;
  // Locks the SM clock at one of sm_clocks_mhz(); ok=false says why not.
  virtual GpuClockChange set_sm_clock_mhz(int mhz) = 0;
  // Undoes every clock change this meter made (idempotent).
  virtual void restore() noexcept = 0;
};

// The meter of the GPU at this PCI bus id ("0000:3B:00.0"); never null:
// without NVML or the GPU it reads nothing and source() says why.
std::unique_ptr<GpuMeter> open_gpu_meter(const CudaSettings& s, const std::string& pci_bus_id);

}  // namespace joule::cuda
