// The GPU meter where NVML is not built in (a build without CUDA, or before
// the NVML meter's sources are part of the layer): it reads nothing and
// says why.
#include "gpu_meter.hpp"

namespace joule::cuda {
namespace {

#ifdef JOULE_HAVE_CUDA
constexpr const char* kWhy = "this build has no NVML meter";
#else
constexpr const char* kWhy = "built without CUDA (JOULE_CUDA=OFF or no CUDA toolkit at build time)";
#endif

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

}  // namespace

std::unique_ptr<GpuMeter> open_gpu_meter(const CudaSettings&, const std::string&) {
  return std::make_unique<NoMeter>();
}

}  // namespace joule::cuda
