/* A Fletcher-like acoustic wave step (OmpSs-2): an 8th-order 3-D Laplacian
   over float arrays behind restrict-qualified parameters, one taskloop over
   the z planes per time step. The inner x loop is the one the compiler must
   vectorise in each chunk as it does in the sequential build; the runs of
   scripts/callgrind-stencil compare the two (docs/performance.md).
   Arguments: the edge of the cube (default 40) and the steps (default 6). */
/* The pragmas keep OmpSs spacing. */
// clang-format off
#include <stdio.h>
#include <stdlib.h>

#ifdef __cplusplus
#define restrict __restrict__
#endif

#define R 4 /* stencil radius: 8th order */

static void wave_step(int nx, int ny, int nz, const float *restrict u, float *restrict v,
                      const float *restrict vel) {
  const float c0 = -3.0f * (1.0f + 1.0f / 4 + 1.0f / 9 + 1.0f / 16) * 2.5f;
  const float c1 = 1.6f, c2 = -0.2f, c3 = 0.0253968f, c4 = -0.00178571f;
  const int sy = nx, sz = nx * ny;
#pragma oss taskloop grainsize(2)
  for (int z = R; z < nz - R; z++)
    for (int y = R; y < ny - R; y++)
      for (int x = R; x < nx - R; x++) {
        const int i = z * sz + y * sy + x;
        const float lap =
            c0 * u[i] +
            c1 * (u[i + 1] + u[i - 1] + u[i + sy] + u[i - sy] + u[i + sz] + u[i - sz]) +
            c2 * (u[i + 2] + u[i - 2] + u[i + 2 * sy] + u[i - 2 * sy] + u[i + 2 * sz] + u[i - 2 * sz]) +
            c3 * (u[i + 3] + u[i - 3] + u[i + 3 * sy] + u[i - 3 * sy] + u[i + 3 * sz] + u[i - 3 * sz]) +
            c4 * (u[i + 4] + u[i - 4] + u[i + 4 * sy] + u[i - 4 * sy] + u[i + 4 * sz] + u[i - 4 * sz]);
        v[i] = 2.0f * u[i] - v[i] + vel[i] * lap;
      }
#pragma oss taskwait
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 40, steps = argc > 2 ? atoi(argv[2]) : 6;
  if (n <= 2 * R || steps < 0) return 2;
  const long total = (long)n * n * n;
  float *a = (float *)calloc(total, sizeof(float)), *b = (float *)calloc(total, sizeof(float));
  float *vel = (float *)malloc(total * sizeof(float));
  if (!a || !b || !vel) return 1;
  for (long i = 0; i < total; i++) vel[i] = 0.01f + 0.002f * (float)(i % 7);
  a[(n / 2 * (long)n + n / 2) * n + n / 2] = 1.0f; /* a point source */
  for (int s = 0; s < steps; s++) {
    wave_step(n, n, n, a, b, vel);
    float *t = a;
    a = b;
    b = t;
  }
  double sum = 0, sq = 0;
  for (long i = 0; i < total; i++) {
    sum += a[i];
    sq += (double)a[i] * a[i];
  }
  printf("sum %.6e energy %.6e centre %.6e\n", sum, sq,
         a[(n / 2 * (long)n + n / 2) * n + n / 2]);
  free(a);
  free(b);
  free(vel);
  return 0;
}
