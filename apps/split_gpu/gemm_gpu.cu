// split-gpu's GPU part: a shared-memory tiled single-precision GEMM over a
// block of rows (the CUDA C++ Programming Guide, "Shared Memory", describes
// the tiling). The CPU part (split_gpu.cpp) computes the same rows in the
// same order of k, so both give the same results up to rounding.
#include <cuda_runtime.h>

#include "gemm_gpu.hpp"

namespace split_gpu {
namespace {

constexpr int kTile = 16;

__global__ void gemm_rows(const float* a, const float* b, float* c, int rows, int n) {
  __shared__ float ta[kTile][kTile];
  __shared__ float tb[kTile][kTile];
  const int row = blockIdx.y * kTile + threadIdx.y;
  const int col = blockIdx.x * kTile + threadIdx.x;
  float sum = 0;
  for (int k0 = 0; k0 < n; k0 += kTile) {
    const int ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
    ta[threadIdx.y][threadIdx.x] = row < rows && ka < n ? a[size_t(row) * n + ka] : 0.0f;
    tb[threadIdx.y][threadIdx.x] = kb < n && col < n ? b[size_t(kb) * n + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < kTile; ++k) sum += ta[threadIdx.y][k] * tb[k][threadIdx.x];
    __syncthreads();
  }
  if (row < rows && col < n) c[size_t(row) * n + col] = sum;
}

}  // namespace

void gemm_rows_gpu(CUstream_st* stream, const float* a, const float* b, float* c, int rows, int n) {
  const dim3 block(kTile, kTile);
  const dim3 grid((n + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
  gemm_rows<<<grid, block, 0, stream>>>(a, b, c, rows, n);
}

}  // namespace split_gpu
