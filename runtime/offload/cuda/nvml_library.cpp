#include "nvml_library.hpp"

#include <dlfcn.h>

#include <map>
#include <mutex>

namespace joule::cuda::nvml {
namespace {

struct Loaded {
  Library lib{};
  bool ok = false;
  std::string why;
};

template <class F>
bool resolve(void* handle, const char* name, F*& out, std::string* why) {
  out = reinterpret_cast<F*>(::dlsym(handle, name));
  if (!out && why->empty()) *why = std::string("dlsym ") + name + ": not in the library";
  return out != nullptr;
}

// Every required entry point, by the names NVML documents (the _v2 ones
// where NVML versioned them).
bool resolve_all(void* h, Library& l, std::string* why) {
  bool ok = resolve(h, "nvmlInit_v2", l.init, why) & resolve(h, "nvmlShutdown", l.shutdown, why) &
            resolve(h, "nvmlErrorString", l.error_string, why) &
            resolve(h, "nvmlDeviceGetHandleByPciBusId_v2", l.handle_by_bus_id, why) &
            resolve(h, "nvmlDeviceGetName", l.name, why) &
            resolve(h, "nvmlDeviceGetTotalEnergyConsumption", l.total_energy, why) &
            resolve(h, "nvmlDeviceGetPowerUsage", l.power_usage, why) &
            resolve(h, "nvmlDeviceGetClockInfo", l.clock_info, why) &
            resolve(h, "nvmlDeviceGetMaxClockInfo", l.max_clock_info, why) &
            resolve(h, "nvmlDeviceGetSupportedMemoryClocks", l.supported_memory_clocks, why) &
            resolve(h, "nvmlDeviceGetSupportedGraphicsClocks", l.supported_graphics_clocks, why) &
            resolve(h, "nvmlDeviceSetGpuLockedClocks", l.set_locked_clocks, why) &
            resolve(h, "nvmlDeviceResetGpuLockedClocks", l.reset_locked_clocks, why) &
            resolve(h, "nvmlDeviceSetApplicationsClocks", l.set_applications_clocks, why) &
            resolve(h, "nvmlDeviceResetApplicationsClocks", l.reset_applications_clocks, why) &
            resolve(h, "nvmlDeviceGetApplicationsClock", l.applications_clock, why) &
            resolve(h, "nvmlDeviceGetMemoryInfo", l.memory_info, why);
  l.api_restriction =
      reinterpret_cast<decltype(l.api_restriction)>(::dlsym(h, "nvmlDeviceGetAPIRestriction"));
  return ok;
}

Loaded load_once(const std::string& path) {
  Loaded r;
  void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = ::dlerror();
    r.why = "dlopen " + path + ": " + (e ? e : "failed");
    return r;
  }
  // The handle stays open for the process's life: NVML is never shut down.
  if (!resolve_all(h, r.lib, &r.why)) return r;
  if (const Return rc = r.lib.init(); rc != kSuccess) {
    r.why = "nvmlInit_v2: " + r.lib.error(rc);
    return r;
  }
  r.ok = true;
  return r;
}

}  // namespace

std::string Library::error(Return r) const {
  const char* s = error_string ? error_string(r) : nullptr;
  return (s && *s) ? std::string(s) : "NVML error " + std::to_string(r);
}

const Library* load_library(const std::string& path, std::string* why) {
  static std::mutex mu;
  static std::map<std::string, Loaded> loaded;
  std::lock_guard lock(mu);
  auto it = loaded.find(path);
  if (it == loaded.end()) it = loaded.emplace(path, load_once(path)).first;
  if (!it->second.ok && why) *why = it->second.why;
  return it->second.ok ? &it->second.lib : nullptr;
}

}  // namespace joule::cuda::nvml
