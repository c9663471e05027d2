// Keys of the CUDA GPUs (CudaSettings; docs/offload.md, "CUDA GPUs"). The
// same in builds with and without CUDA, so a configuration checks the same
// everywhere; a build without CUDA simply finds no GPU.
#include <stdexcept>
#include <string>

#include "config.hpp"
#include "cuda_settings.hpp"
#include "key_table.hpp"
#include "text.hpp"

namespace joule::offload {
namespace {

using S = CudaSettings;

void parse_library(std::string& out, std::string_view v) {
  const std::string s(core::trim(v));
  if (s.empty()) throw std::invalid_argument("empty library name");
  out = s;
}

}  // namespace

std::vector<core::ConfigKey> cuda_config_keys() {
  core::KeyTable<S> t;
  t.choice(
      "JOULE_CUDA", &S::mode, core::Choices<CudaMode>(kCudaModes),
      "CUDA GPUs for device(cuda) tasks: auto (the GPUs the driver shows, if any), off (none), "
      "or required (the runtime does not start without one)");
  t.custom(
      "JOULE_CUDA_DRIVER", "text", "a library name or path (dlopen'ed), not empty",
      "the CUDA driver library loaded at run time (a test double in the tests)",
      [](S& s, std::string_view v) { parse_library(s.driver, v); },
      [](const S& s) { return s.driver; });
  t.integer("JOULE_CUDA_STREAMS", &S::streams, 1, 64,
            "streams per GPU: launches are spread over them round robin, so copies and kernels "
            "of independent tasks overlap");
  t.flag("JOULE_CUDA_PIN", &S::pin,
         "page-lock (cuMemHostRegister) the host memory of regions copied to and from a GPU, "
         "so the copies are asynchronous; a refusal leaves the memory pageable");
  t.custom(
      "JOULE_NVML_LIBRARY", "text", "a library name or path (dlopen'ed), not empty",
      "the NVML library loaded at run time for the GPUs' energy, power and clocks",
      [](S& s, std::string_view v) { parse_library(s.nvml, v); },
      [](const S& s) { return s.nvml; });
  t.integer("JOULE_CUDA_SM_CLOCK", &S::sm_clock_mhz, 0, 100000,
            "SM clock the GPUs are locked at when joule starts (restored at stop); a driver that "
            "refuses is reported and the clocks are left alone",
            "MHz; 0: leave the clocks");
  return t.keys();
}

}  // namespace joule::offload
