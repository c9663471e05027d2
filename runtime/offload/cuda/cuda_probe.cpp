// What the CUDA driver shows (probe_cuda) and one CudaDevice per GPU
// (open_cuda_devices).
#include "cuda_device.hpp"
#include "cuda_driver.hpp"
#include "cuda_gpu.hpp"

namespace joule::cuda {
namespace {

constexpr const char* kOff = "JOULE_CUDA=off";

int attribute(const CudaDriver& d, CUdevice dev, CUdevice_attribute a) {
  int v = 0;
  d.check(d.cuDeviceGetAttribute(&v, a, dev), "cuDeviceGetAttribute");
  return v;
}

CudaDeviceInfo device_info(const CudaDriver& d, int index) {
  CudaDeviceInfo info;
  info.index = index;
  CUdevice dev = 0;
  d.check(d.cuDeviceGet(&dev, index), "cuDeviceGet");
  char text[256] = {};
  d.check(d.cuDeviceGetName(text, sizeof text - 1, dev), "cuDeviceGetName");
  info.name = text;
  char bus[32] = {};  // "0000:3B:00.0": 13 bytes with the terminator
  d.check(d.cuDeviceGetPCIBusId(bus, sizeof bus - 1, dev), "cuDeviceGetPCIBusId");
  info.pci_bus_id = bus;
  d.check(d.cuDeviceTotalMem_v2(&info.total_bytes, dev), "cuDeviceTotalMem");
  // free_bytes stays 0: reading it (cuMemGetInfo) needs a context, which
  // costs the GPU memory and start-up time a probe should not.
  info.sm_count = attribute(d, dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info.cc_major = attribute(d, dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info.cc_minor = attribute(d, dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info.sm_clock_mhz_max = attribute(d, dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000;  // kHz
  CUuuid uuid{};
  if (d.cuDeviceGetUuid && d.cuDeviceGetUuid(&uuid, dev) == CUDA_SUCCESS) {
    for (int i = 0; i < 16; ++i) info.uuid[i] = static_cast<unsigned char>(uuid.bytes[i]);
    info.has_uuid = true;
  }
  return info;
}

CudaProbe probe_with(const CudaDriver& d) {
  CudaProbe p;
  const CUresult init = d.cuInit(0);
  if (init != CUDA_SUCCESS) {
    p.why_none = "cuInit: " + d.error_text(init);
    return p;
  }
  d.check(d.cuDriverGetVersion(&p.driver_version), "cuDriverGetVersion");
  int n = 0;
  d.check(d.cuDeviceGetCount(&n), "cuDeviceGetCount");
  for (int i = 0; i < n; ++i) p.devices.push_back(device_info(d, i));
  if (n == 0) p.why_none = "the CUDA driver shows no device";
  return p;
}

}  // namespace

CudaProbe probe_cuda(const CudaSettings& s) {
  CudaProbe p;
  if (s.mode == CudaMode::off) {
    p.why_none = kOff;
    return p;
  }
  const CudaDriver* d = load_cuda_driver(s.driver, &p.why_none);
  if (!d) return p;
  try {
    return probe_with(*d);
  } catch (const std::exception& e) {  // a driver that fails a query shows no device
    p = {};
    p.why_none = e.what();
    return p;
  }
}

std::vector<std::unique_ptr<offload::Device>> open_cuda_devices(const CudaSettings& s,
                                                                std::string* why_none) {
  std::vector<std::unique_ptr<offload::Device>> out;
  const CudaProbe p = probe_cuda(s);
  if (why_none) *why_none = p.why_none;
  if (p.devices.empty()) return out;
  const CudaDriver* d = load_cuda_driver(s.driver, nullptr);
  for (const CudaDeviceInfo& info : p.devices)
    out.push_back(std::make_unique<CudaDevice>(*d, s, info));
  return out;
}

}  // namespace joule::cuda
