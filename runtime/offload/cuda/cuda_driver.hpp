// The CUDA driver API entry points joule uses, resolved at run time from
// CudaSettings::driver with dlopen/dlsym (libjoule never links libcuda, so
// one build runs with or without a GPU). Types come from the toolkit's
// cuda.h; the symbols are the versioned names its #defines map to
// (cuMemAlloc -> cuMemAlloc_v2, ...), which is what the driver exports.
#pragma once

#include <cuda.h>

#include <string>

namespace joule::cuda {

struct CudaDriver {
// clang-format off
#define JOULE_CUDA_CALLS(X) \
  X(cuGetErrorName) X(cuGetErrorString) X(cuInit) X(cuDriverGetVersion) \
  X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetAttribute) \
  X(cuDeviceGetPCIBusId) X(cuDeviceTotalMem_v2) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease_v2) \
  X(cuCtxPushCurrent_v2) X(cuCtxPopCurrent_v2) X(cuMemAlloc_v2) X(cuMemFree_v2) \
  X(cuMemHostRegister_v2) X(cuMemHostUnregister) X(cuMemcpyHtoDAsync_v2) X(cuMemcpyDtoHAsync_v2) \
  X(cuMemcpyDtoD_v2) X(cuStreamCreate) X(cuStreamDestroy_v2) X(cuStreamSynchronize) \
  X(cuStreamWaitEvent) X(cuLaunchHostFunc) X(cuEventCreate) X(cuEventDestroy_v2) \
  X(cuEventRecord) X(cuEventQuery) X(cuEventSynchronize)
// clang-format on
#define JOULE_CUDA_FIELD(name) decltype(&::name) name = nullptr;
  JOULE_CUDA_CALLS(JOULE_CUDA_FIELD)
#undef JOULE_CUDA_FIELD

  // Optional (null when the driver lacks it): device UUIDs (cuda.h maps
  // cuDeviceGetUuid to cuDeviceGetUuid_v2 since CUDA 11.4).
  decltype(&::cuDeviceGetUuid) cuDeviceGetUuid = nullptr;

  // "CUDA_ERROR_OUT_OF_MEMORY (out of memory)"
  std::string error_text(CUresult r) const;
  // Throws joule::error "<call>: <error_text>" unless r is CUDA_SUCCESS.
  void check(CUresult r, const char* call) const;
};

// The driver at `path`, loaded once per process and path (never unloaded);
// null with *why = "no CUDA driver: <dlerror text>" when the library or one
// of its symbols is missing.
const CudaDriver* load_cuda_driver(const std::string& path, std::string* why);

// Pushes the context current on this thread for the scope (cuCtxPushCurrent).
class CudaContextScope {
 public:
  CudaContextScope(const CudaDriver& d, CUcontext ctx);
  ~CudaContextScope();
  CudaContextScope(const CudaContextScope&) = delete;
  CudaContextScope& operator=(const CudaContextScope&) = delete;

 private:
  const CudaDriver& d_;
};

}  // namespace joule::cuda
