// The cuda layer of a build without CUDA (JOULE_CUDA=OFF or no toolkit):
// no GPUs, and every answer says why.
#include "cuda_device.hpp"
#include "gpu_meter.hpp"

namespace joule::offload {
namespace {

constexpr const char* kWhy = "built without CUDA (JOULE_CUDA=OFF or no CUDA toolkit at build time)";

// A CUDA build measures through NVML (nvml_meter.cpp).
#ifndef JOULE_HAVE_CUDA
class NoMeter final : public GpuMeter {
 public:
  std::string source() const override { return std::string("none: ") + kWhy; }
  bool energy_joules(double*) const override { return false; }
  bool power_watts(double*) const override { return false; }
  std::vector<int> sm_clocks_mhz() const override { return {}; }
  int sm_clock_mhz() const override { return 0; }
  GpuClockChange set_sm_clock_mhz(int) override { return {false, kWhy}; }
  void restore() noexcept override {}
};
#endif

}  // namespace

CudaProbe probe_cuda(const CudaSettings&) { return {{}, kWhy, 0}; }

CudaKernelContext* current_cuda_context() noexcept { return nullptr; }

std::vector<std::unique_ptr<Device>> open_cuda_devices(const CudaSettings&, std::string* why_none) {
  if (why_none) *why_none = kWhy;
  return {};
}

#ifndef JOULE_HAVE_CUDA
std::unique_ptr<GpuMeter> open_gpu_meter(const CudaSettings&, const std::string&) {
  return std::make_unique<NoMeter>();
}
#endif

}  // namespace joule::offload
