// device(cuda) task functions from C++ (kernels.h, kernels.cu, built without
// KERNELS_FOR_C: C++ linkage on both sides): the same checks as
// cuda_tasks.c, the data in std::vector. Prints OK when every value is right.
#include <cstdio>
#include <vector>

#include "kernels.h"

int main() {
  const int n = 1000, w = 37, h = 21;
  std::vector<float> x(n), y(n, 1.0f), m(w * h, 0.0f);
  for (int i = 0; i < n; i++) x[i] = float(i);
  float* yp = y.data();
  float seen = -1;
  for (int k = 0; k < 4; k++) saxpy(n, 0.5f, x.data(), yp);
  scale_on_stream(n, 3.0f, yp);
#pragma oss task in(yp[0;n]) out(seen)
  seen = yp[10];
  fill2d(w, h, m.data());
#pragma oss taskwait
  int bad = seen != 63.0f;
  for (int i = 0; i < n; i++) bad += y[i] != 3.0f + 6.0f * float(i);
  for (int j = 0; j < h; j++)
    for (int i = 0; i < w; i++) bad += m[j * w + i] != float(j * 1000 + i);
  std::printf("y[10] %.1f m[w*h-1] %.1f wrong %d\n", seen, m[w * h - 1], bad);
  if (bad) return 2;
  std::printf("OK\n");
  return 0;
}
