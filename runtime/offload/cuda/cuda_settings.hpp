// The CUDA GPUs' settings (keys in config_keys_cuda.cpp; docs/offload.md,
// "CUDA GPUs"). Declared whether or not this build has CUDA, so the
// configuration table and the checks are the same everywhere.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "choices.hpp"
#include "config.hpp"

namespace joule::cuda {

// auto: use the GPUs a driver shows, if any (a device(cuda) task without
// one fails naming why); off: none; required: the runtime does not start
// without one.
enum class CudaMode { automatic, off, required };
inline constexpr std::pair<const char*, CudaMode> kCudaModes[] = {
    {"auto", CudaMode::automatic}, {"off", CudaMode::off}, {"required", CudaMode::required}};

struct CudaSettings {
  CudaMode mode = CudaMode::automatic;     // JOULE_CUDA
  std::string driver = "libcuda.so.1";     // JOULE_CUDA_DRIVER: dlopen'ed
  int streams = 4;                         // JOULE_CUDA_STREAMS: per GPU, 1..64
  bool pin = true;                         // JOULE_CUDA_PIN: page-lock regions copied
  std::string nvml = "libnvidia-ml.so.1";  // JOULE_NVML_LIBRARY: dlopen'ed
  int sm_clock_mhz = 0;                    // JOULE_CUDA_SM_CLOCK: locked at start; 0: leave
  // Where GPU clock records go (nvml_clock_record.hpp): the platform's
  // JOULE_STATE_DIR, copied by the wiring; empty: core::Config::default_state_dir().
  std::string state_dir;
};

// JOULE_CUDA, JOULE_CUDA_DRIVER, ... (config_keys_cuda.cpp).
std::vector<core::ConfigKey> cuda_config_keys();

}  // namespace joule::cuda
