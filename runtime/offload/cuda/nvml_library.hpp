// NVML's entry points, resolved at run time: dlopen(CudaSettings::nvml)
// and dlsym of the documented (versioned) names, so libjoule never links
// libnvidia-ml and one build runs with or without a GPU. Each library path
// is loaded and initialised (nvmlInit_v2) once per process and never shut
// down: other libraries in the process may share NVML's one instance.
#pragma once

#include <string>

#include "nvml_api.hpp"

namespace joule::cuda::nvml {

struct Library {
  Return (*init)();
  Return (*shutdown)();
  const char* (*error_string)(Return);
  Return (*handle_by_bus_id)(const char*, Device*);
  Return (*name)(Device, char*, unsigned);
  Return (*total_energy)(Device, unsigned long long*);  // mJ
  Return (*power_usage)(Device, unsigned*);             // mW
  Return (*clock_info)(Device, int, unsigned*);
  Return (*max_clock_info)(Device, int, unsigned*);
  Return (*supported_memory_clocks)(Device, unsigned*, unsigned*);
  Return (*supported_graphics_clocks)(Device, unsigned, unsigned*, unsigned*);
  Return (*set_locked_clocks)(Device, unsigned, unsigned);
  Return (*reset_locked_clocks)(Device);
  Return (*set_applications_clocks)(Device, unsigned, unsigned);
  Return (*reset_applications_clocks)(Device);
  Return (*applications_clock)(Device, int, unsigned*);
  Return (*memory_info)(Device, Memory*);
  // Optional (null where the library lacks it): whether setting the
  // application clocks is restricted to root.
  Return (*api_restriction)(Device, int, int*);

  // "NVML_ERROR_NO_PERMISSION"-like text for `r`, from nvmlErrorString.
  std::string error(Return r) const;
};

// The library at `path`, loaded and initialised; null with *why ("dlopen
// libnvidia-ml.so.1: ...", "nvmlInit_v2: ...") when it cannot be.
const Library* load_library(const std::string& path, std::string* why);

}  // namespace joule::cuda::nvml
