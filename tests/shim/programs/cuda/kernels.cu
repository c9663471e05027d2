// The kernels behind kernels.h. A C program declares them with C linkage:
// built for one, KERNELS_FOR_C makes them extern "C" here too.
#include <cuda_runtime_api.h>
#include <joule/cuda.h>

#ifdef KERNELS_FOR_C
#define LINKAGE extern "C"
#else
#define LINKAGE
#endif

LINKAGE __global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

LINKAGE __global__ void fill2d(int w, int h, float *m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < w && j < h) m[j * w + i] = float(j * 1000 + i);
}

static __global__ void scale(int n, float a, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] *= a;
}

// A device(cuda) task function without ndrange: host code on the task's
// worker, launching on the task's stream (y is already the GPU's copy).
LINKAGE void scale_on_stream(int n, float a, float *y) {
  scale<<<(n + 63) / 64, 64, 0, (cudaStream_t)joule_cuda_current_stream()>>>(n, a, y);
}
