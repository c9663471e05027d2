/* device(cuda) task functions for cuda_tasks.c / cuda_tasks.cpp: two kernels
 * launched by joule with ndrange (one 1-D over a size that is not a multiple
 * of the block, one 2-D) and a host function that launches its own kernel
 * on the task's stream. Their definitions are in kernels.cu. */
#ifndef CUDA_TEST_KERNELS_H
#define CUDA_TEST_KERNELS_H

#pragma oss task device(cuda) ndrange(1, n, 128) in([n]x) inout([n]y)
void saxpy(int n, float a, const float *x, float *y);

#pragma oss task device(cuda) ndrange(2, w, h, 16, 8) out([w * h]m)
void fill2d(int w, int h, float *m);

#pragma oss task device(cuda) inout([n]y)
void scale_on_stream(int n, float a, float *y);

#endif
