// The saxpy kernel of cuda_tasks_saxpy_test.cpp, compiled by nvcc apart
// from the test (whose joule headers are C++20), launched on a given stream.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_tasks_saxpy_kernel.hpp"

namespace {
__global__ void saxpy(std::int64_t n, float a, const float* x, float* y) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
}  // namespace

bool launch_saxpy(CUstream_st* stream, std::int64_t n, float a, const float* x, float* y) {
  saxpy<<<unsigned((n + 255) / 256), 256, 0, stream>>>(n, a, x, y);
  return cudaGetLastError() == cudaSuccess;
}
