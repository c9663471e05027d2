/* Taskloop code: Jacobi sweeps over a 2D grid, each sweep a `taskloop`
 * over rows (grainsize) inside one `single`, with the implicit taskgroup
 * as the sweep's barrier. Every point depends only on the previous sweep,
 * so the result must equal the serial one bit for bit.
 *
 *   taskloop [n=512] [sweeps=40] [grainsize=4] [reps=5] */
#include <string.h>

#include "suite.h"

static int g_n = 512, g_sweeps = 40, g_grain = 4;
static double *g_a, *g_b, *g_ref;

static void row(const double *src, double *dst, int i) {
  const int n = g_n;
  for (int j = 1; j < n - 1; ++j)
    dst[i * n + j] = 0.25 * (src[(i - 1) * n + j] + src[(i + 1) * n + j] + src[i * n + j - 1] +
                             src[i * n + j + 1]);
}

static void init(double *g) {
  for (int i = 0; i < g_n * g_n; ++i) g[i] = (i % g_n == 0 || i < g_n) ? 1.0 : 0.0;
}

/* Leaves the last sweep's grid in g_a (and returns it). */
static double *sweeps_serial(double *a, double *b) {
  for (int s = 0; s < g_sweeps; ++s) {
    for (int i = 1; i < g_n - 1; ++i) row(a, b, i);
    double *t = a;
    a = b;
    b = t;
  }
  return a;
}

static int kernel(void *unused) {
  (void)unused;
  init(g_a);
  init(g_b);
  double *a = g_a, *b = g_b;
#pragma omp parallel
#pragma omp single
  for (int s = 0; s < g_sweeps; ++s) {
#pragma omp taskloop grainsize(g_grain)
    for (int i = 1; i < g_n - 1; ++i) row(a, b, i);
    double *t = a;
    a = b;
    b = t;
  }
  return memcmp(a, g_ref, sizeof(double) * (size_t)g_n * (size_t)g_n) != 0;
}

int main(int argc, char **argv) {
  g_n = suite_arg(argc, argv, 1, g_n);
  g_sweeps = suite_arg(argc, argv, 2, g_sweeps);
  g_grain = suite_arg(argc, argv, 3, g_grain);
  const size_t bytes = sizeof(double) * (size_t)g_n * (size_t)g_n;
  g_a = malloc(bytes);
  g_b = malloc(bytes);
  double *r1 = malloc(bytes), *r2 = malloc(bytes);
  init(r1);
  init(r2);
  g_ref = sweeps_serial(r1, r2);
  return suite_main("taskloop", suite_arg(argc, argv, 4, 5), kernel, NULL);
}
