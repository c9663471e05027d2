// NVML clock queries shared by the meter (nvml_meter.cpp) and
// `joule-ctl devices`: the supported SM clocks, and whether this process
// may change them, decided without changing anything; and the memory
// NVML reports, which needs no CUDA context (the driver's free memory does).
#pragma once

#include <string>
#include <vector>

#include "cuda_settings.hpp"
#include "nvml_library.hpp"

namespace joule::cuda::nvml {

// The graphics clocks NVML supports at the highest supported memory clock
// (nvmlDeviceGetSupportedMemoryClocks, nvmlDeviceGetSupportedGraphicsClocks),
// highest first; empty when NVML does not say.
std::vector<int> supported_sm_clocks(const Library& lib, Device dev);
// "1980, 1965, ..., 345" (at most the first and last few of a long list).
std::string clock_list(const std::vector<int>& mhz);

// Whether the GPU at `bus_id` would accept an SM clock change from this
// process: "yes (root)", "application clocks: yes (unrestricted); locked
// clocks: root only", "no: ...", or "unknown until tried (...)".
std::string clock_permission(const CudaSettings& s, const std::string& bus_id);

// nvmlDeviceGetMemoryInfo of the GPU at `bus_id`; false when NVML cannot say.
bool device_memory(const CudaSettings& s, const std::string& bus_id, Memory* m);

}  // namespace joule::cuda::nvml
