// The GPU kernel of split-gpu (gemm_gpu.cu), declared without CUDA's
// headers so the host code builds as plain C++.
#pragma once

struct CUstream_st;

namespace split_gpu {

// c[i, :] = a[i, :] * b for `rows` rows of n floats, enqueued on `stream`.
// a and c point at the GPU copies of the rows, b at the GPU copy of b.
void gemm_rows_gpu(CUstream_st* stream, const float* a, const float* b, float* c, int rows, int n);

}  // namespace split_gpu
