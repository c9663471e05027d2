// Keys of the CUDA GPUs (CudaSettings; docs/offload.md, "CUDA GPUs"). The
// same in builds with and without CUDA, so a configuration checks the same
// everywhere; a build without CUDA simply finds no GPU.
#include <stdexcept>
#include <string>

#include "config.hpp"
#include "cuda_settings.hpp"
#include "key_table.hpp"
#include "text.hpp"

namespace joule::cuda {
namespace {

using S = CudaSettings;

// A library dlopen'ed at run time: any name or path but an empty one.
void library_key(core::KeyTable<S>& t, const char* name, std::string S::*m, const char* help) {
  t.custom(
      name, "text", "a library name or path (dlopen'ed), not empty", help,
      [m](S& s, std::string_view v) {
        if (core::trim(v).empty()) throw std::invalid_argument("empty library name");
        s.*m = std::string(core::trim(v));
      },
      [m](const S& s) { return s.*m; });
}

}  // namespace

std::vector<core::ConfigKey> cuda_config_keys() {
  core::KeyTable<S> t;
  t.choice(
      "JOULE_CUDA", &S::mode, core::Choices<CudaMode>(kCudaModes),
      "CUDA GPUs for device(cuda) tasks: auto (the GPUs the driver shows, if any), off (none), "
      "or required (the runtime does not start without one)");
  library_key(t, "JOULE_CUDA_DRIVER", &S::driver,
              "the CUDA driver library loaded at run time (a test double in the tests)");
  t.integer("JOULE_CUDA_STREAMS", &S::streams, 1, 64,
            "streams per GPU: launches are spread over them round robin, so copies and kernels "
            "of independent tasks overlap");
  t.flag("JOULE_CUDA_PIN", &S::pin,
         "page-lock (cuMemHostRegister) the host memory of regions copied to and from a GPU, "
         "so the copies are asynchronous; a refusal leaves the memory pageable");
  library_key(t, "JOULE_NVML_LIBRARY", &S::nvml,
              "the NVML library loaded at run time for the GPUs' energy, power and clocks");
  t.integer("JOULE_CUDA_SM_CLOCK", &S::sm_clock_mhz, 0, 100000,
            "SM clock the GPUs are locked at when joule starts (restored at stop); a driver that "
            "refuses is reported and the clocks are left alone",
            "MHz; 0: leave the clocks");
  return t.keys();
}

}  // namespace joule::cuda
