// The parts of DLB's API joule answers without a subsystem of its own:
// the application manager (dlb_mngo.h: DLB_ERR_NOMNGO, as DLB without
// --mngo), the GPU list of DLB_GetGPUAffinity (from the CUDA layer) and
// the deprecated auto-sizer (DLB_ERR_NOCOMP).
#include <cstdio>
#include <string>

#include "config.hpp"
#include "cuda_device.hpp"
#include "cuda_settings.hpp"
#include "joule/dlb/dlb_mngo.h"

namespace {

// "0 (UUID=..1a2b, default), 1 (UUID=..3c4d)": DLB's form. The default
// device is ordinal 0, the one a process gets before it picks another.
std::string gpu_list(const joule::cuda::CudaProbe& p, bool full_uuid) {
  std::string out;
  for (const auto& d : p.devices) {
    char uuid[40] = "unknown";
    const unsigned char* u = d.uuid;
    if (d.has_uuid && full_uuid)
      std::snprintf(uuid, sizeof uuid,
                    "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
                    u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
                    u[13], u[14], u[15]);
    else if (d.has_uuid)
      std::snprintf(uuid, sizeof uuid, "..%02x%02x", u[14], u[15]);
    if (!out.empty()) out += ", ";
    out += std::to_string(d.index) + " (UUID=" + uuid + (d.index == 0 ? ", default" : "") + ")";
  }
  return out;
}

}  // namespace

extern "C" {

int DLB_MNGO_Wake_manager(void) { return DLB_ERR_NOMNGO; }
int DLB_MNGO_Enable_LeWI(void) { return DLB_ERR_NOMNGO; }
int DLB_MNGO_Poll_DROM(void) { return DLB_ERR_NOMNGO; }
dlb_mngo_region_t* DLB_MNGO_RegionRegister(const char* /*name*/) { return nullptr; }
int DLB_MNGO_RegionStart(dlb_mngo_region_t* /*region*/) { return DLB_ERR_NOMNGO; }
int DLB_MNGO_RegionStop(dlb_mngo_region_t* /*region*/) { return DLB_ERR_NOMNGO; }
// dlbf_mngo.h's dlb_mngo_regionregister(region_name, flags), which is not
// bind(c): gfortran's external name, the name's length passed last.
JOULE_EXPORT dlb_mngo_region_t* dlb_mngo_regionregister_(const char* /*name*/, int /*flags*/,
                                                         size_t /*name_len*/) {
  return nullptr;
}

int DLB_GetGPUAffinity(char* buffer, size_t buffer_size, bool full_uuid) {
  if (!buffer || buffer_size == 0) return DLB_ERR_NOMEM;
  joule::cuda::CudaProbe probe;
  try {
    probe = joule::cuda::probe_cuda(joule::core::Config::load({}).get<joule::cuda::CudaSettings>());
  } catch (const std::exception& e) {  // a bad JOULE_CUDA* key: no GPU to name
    probe.why_none = e.what();
  }
  const std::string text = probe.devices.empty() ? "none" : gpu_list(probe, full_uuid);
  if (text.size() >= buffer_size) return DLB_ERR_NOMEM;
  std::snprintf(buffer, buffer_size, "%s", text.c_str());
  return probe.devices.empty() ? DLB_ERR_NOENT : DLB_SUCCESS;
}

int DLB_AutoSizerStart(void) { return DLB_ERR_NOCOMP; }
int DLB_AutoSizerEnd(void) { return DLB_ERR_NOCOMP; }

}  // extern "C"
