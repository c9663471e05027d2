// The real-GPU test's kernel (cuda_device_gpu_test.cpp): y = a * x + y.
#include <cuda_runtime.h>

namespace {

__global__ void saxpy(int n, float a, const float* x, float* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

}  // namespace

// Enqueues the kernel on `stream`; the launch's error, if any, as text.
const char* launch_saxpy(void* stream, int n, float a, const float* x, float* y) {
  saxpy<<<(n + 255) / 256, 256, 0, static_cast<cudaStream_t>(stream)>>>(n, a, x, y);
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? nullptr : cudaGetErrorString(e);
}
