/* Blocked task code with dependencies: right-looking LU without pivoting
 * on a diagonally dominant matrix, one task per block operation (getrf,
 * trsm on the row and column, gemm on the trailing blocks), ordered by
 * `depend(in/inout)` on the blocks. The check solves A x = b with the
 * factors, for the x that b was made from.
 *
 *   lu [blocks=16] [block_size=48] [reps=5] */
#include <math.h>
#include <string.h>

#include "suite.h"

static int g_nb = 16, g_bs = 48;
static double **g_blocks; /* g_nb x g_nb blocks of g_bs x g_bs, row-major */
static double **g_orig;

#define BLK(b, i, j) ((b)[(size_t)(i) * (size_t)g_nb + (size_t)(j)])

static void getrf(double *a) {
  const int n = g_bs;
  for (int k = 0; k < n; ++k)
    for (int i = k + 1; i < n; ++i) {
      a[i * n + k] /= a[k * n + k];
      for (int j = k + 1; j < n; ++j) a[i * n + j] -= a[i * n + k] * a[k * n + j];
    }
}

/* b := L^-1 b, L the unit lower triangle of diag (a block right of it). */
static void trsm_row(const double *diag, double *b) {
  const int n = g_bs;
  for (int k = 0; k < n; ++k)
    for (int i = k + 1; i < n; ++i)
      for (int j = 0; j < n; ++j) b[i * n + j] -= diag[i * n + k] * b[k * n + j];
}

/* b := b U^-1, U the upper triangle of diag (a block below it). */
static void trsm_col(const double *diag, double *b) {
  const int n = g_bs;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) {
      b[i * n + k] /= diag[k * n + k];
      for (int j = k + 1; j < n; ++j) b[i * n + j] -= b[i * n + k] * diag[k * n + j];
    }
}

static void gemm(const double *l, const double *u, double *c) {
  const int n = g_bs;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) {
      const double x = l[i * n + k];
      for (int j = 0; j < n; ++j) c[i * n + j] -= x * u[k * n + j];
    }
}

static void factor(double **b) {
  for (int k = 0; k < g_nb; ++k) {
    double *d = BLK(b, k, k);
#pragma omp task depend(inout : d[0])
    getrf(d);
    for (int j = k + 1; j < g_nb; ++j) {
      double *r = BLK(b, k, j);
#pragma omp task depend(in : d[0]) depend(inout : r[0])
      trsm_row(d, r);
    }
    for (int i = k + 1; i < g_nb; ++i) {
      double *c = BLK(b, i, k);
#pragma omp task depend(in : d[0]) depend(inout : c[0])
      trsm_col(d, c);
    }
    for (int i = k + 1; i < g_nb; ++i)
      for (int j = k + 1; j < g_nb; ++j) {
        double *l = BLK(b, i, k), *u = BLK(b, k, j), *c = BLK(b, i, j);
#pragma omp task depend(in : l[0], u[0]) depend(inout : c[0])
        gemm(l, u, c);
      }
  }
#pragma omp taskwait
}

/* Element (r, c) of a blocked matrix. */
static double *at(double **b, int r, int c) {
  return &BLK(b, r / g_bs, c / g_bs)[(r % g_bs) * g_bs + c % g_bs];
}

static void fill(void) {
  const int n = g_nb * g_bs;
  unsigned s = 12345u;
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) {
      s = s * 1103515245u + 12345u;
      *at(g_orig, r, c) = (double)(s >> 16 & 0x7fff) / 32768.0 + (r == c ? n : 0.0);
    }
}

/* Solves with the factors for b = A x, x_i = 1 + i % 7; 0 when x comes back. */
static int check(void) {
  const int n = g_nb * g_bs;
  double *y = malloc(sizeof(double) * (size_t)n);
  for (int r = 0; r < n; ++r) {
    double s = 0;
    for (int c = 0; c < n; ++c) s += *at(g_orig, r, c) * (1 + c % 7);
    y[r] = s;
  }
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < r; ++c) y[r] -= *at(g_blocks, r, c) * y[c];
  for (int r = n - 1; r >= 0; --r) {
    for (int c = r + 1; c < n; ++c) y[r] -= *at(g_blocks, r, c) * y[c];
    y[r] /= *at(g_blocks, r, r);
  }
  double err = 0;
  for (int r = 0; r < n; ++r) err = fmax(err, fabs(y[r] - (1 + r % 7)));
  free(y);
  return !(err < 1e-8);
}

static int kernel(void *unused) {
  (void)unused;
  const size_t bytes = sizeof(double) * (size_t)g_bs * (size_t)g_bs;
  for (int i = 0; i < g_nb * g_nb; ++i) memcpy(g_blocks[i], g_orig[i], bytes);
#pragma omp parallel
#pragma omp single
  factor(g_blocks);
  return check();
}

int main(int argc, char **argv) {
  g_nb = suite_arg(argc, argv, 1, g_nb);
  g_bs = suite_arg(argc, argv, 2, g_bs);
  g_blocks = malloc(sizeof(double *) * (size_t)(g_nb * g_nb));
  g_orig = malloc(sizeof(double *) * (size_t)(g_nb * g_nb));
  for (int i = 0; i < g_nb * g_nb; ++i) {
    g_blocks[i] = malloc(sizeof(double) * (size_t)g_bs * (size_t)g_bs);
    g_orig[i] = malloc(sizeof(double) * (size_t)g_bs * (size_t)g_bs);
  }
  fill();
  return suite_main("lu", suite_arg(argc, argv, 3, 5), kernel, NULL);
}
