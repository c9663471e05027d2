/* device(cuda) task functions from C (kernels.h, kernels.cu): a chain of
 * GPU tasks on y, a 2-D kernel, and a host task reading the GPU's result.
 * Prints OK when every value is right. Without a GPU the first CUDA task
 * stops the program with joule's "no CUDA device" message (status 1). */
#include <stdio.h>
#include <stdlib.h>

#include "kernels.h"

int main(void) {
  const int n = 1000, w = 37, h = 21;
  float *x = malloc(n * sizeof(float)), *y = malloc(n * sizeof(float));
  float *m = calloc((size_t)w * h, sizeof(float));
  float seen = -1;
  for (int i = 0; i < n; i++) {
    x[i] = (float)i;
    y[i] = 1.0f;
  }
  for (int k = 0; k < 4; k++) saxpy(n, 0.5f, x, y); /* y = 1 + 2 i */
  scale_on_stream(n, 3.0f, y);                      /* y = 3 + 6 i */
#pragma oss task in(y[0;n]) out(seen)
  seen = y[10];
  fill2d(w, h, m);
#pragma oss taskwait
  int bad = seen != 63.0f;
  for (int i = 0; i < n; i++) bad += y[i] != 3.0f + 6.0f * (float)i;
  for (int j = 0; j < h; j++)
    for (int i = 0; i < w; i++) bad += m[j * w + i] != (float)(j * 1000 + i);
  printf("y[10] %.1f m[w*h-1] %.1f wrong %d\n", seen, m[w * h - 1], bad);
  free(x);
  free(y);
  free(m);
  if (bad) return 2;
  printf("OK\n");
  return 0;
}
