// The cuda layer of a build without CUDA (JOULE_CUDA=OFF or no toolkit):
// no GPUs, and every answer says why.
#include "cuda_device.hpp"

namespace joule::cuda {
namespace {

constexpr const char* kWhy = "built without CUDA (JOULE_CUDA=OFF or no CUDA toolkit at build time)";

}  // namespace

CudaProbe probe_cuda(const CudaSettings&) { return {{}, kWhy, 0}; }

CudaKernelContext* current_cuda_context() noexcept { return nullptr; }

std::vector<std::unique_ptr<offload::Device>> open_cuda_devices(const CudaSettings&,
                                                                std::string* why_none) {
  if (why_none) *why_none = kWhy;
  return {};
}

}  // namespace joule::cuda
