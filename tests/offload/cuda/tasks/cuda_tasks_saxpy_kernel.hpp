// y = a * x + y on the GPU, enqueued on stream (a cudaStream_t); false when
// the launch failed (cudaGetLastError).
#pragma once

#include <cstdint>

struct CUstream_st;
bool launch_saxpy(CUstream_st* stream, std::int64_t n, float a, const float* x, float* y);
