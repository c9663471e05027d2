/* Task programs in the style of the BOTS and KASTORS suites, written for
 * this test: fib (a task per call, then with a final cut-off), sparselu
 * (a task per block operation, phases joined by taskwait), a tiled Cholesky
 * factorisation whose tasks are ordered by dependencies only, and a blocked
 * Jacobi sweep with dependencies between neighbour blocks. Each result has
 * one order of operations whatever the schedule, so the printed values are
 * the same bits on every conforming runtime; compared with libomp's output
 * (kmpc.cmake) and checked against the sequential computation. */
#include <math.h>
#include <string.h>

#include "check.h"

static long fib(int n) {
  if (n < 2) return n;
  long a, b;
#pragma omp task shared(a)
  a = fib(n - 1);
#pragma omp task shared(b)
  b = fib(n - 2);
#pragma omp taskwait
  return a + b;
}

static long fib_final(int n) {
  if (n < 2) return n;
  long a, b;
#pragma omp task shared(a) final(n < 15)
  a = fib_final(n - 1);
#pragma omp task shared(b) final(n < 15)
  b = fib_final(n - 2);
#pragma omp taskwait
  return a + b;
}

/* sparselu: NB x NB blocks of BS x BS, some empty (allocated on fill-in). */
enum { NB = 12, BS = 16 };
static float* lu[NB][NB];

static float* block_new(void) { return calloc(BS * BS, sizeof(float)); }

static void lu_init(void) {
  for (int i = 0; i < NB; ++i)
    for (int j = 0; j < NB; ++j) {
      lu[i][j] = NULL;
      if (i == j || (i + 2 * j) % 5 == 0 || (2 * i + j) % 7 == 0) {
        lu[i][j] = block_new();
        for (int k = 0; k < BS * BS; ++k)
          lu[i][j][k] = (float)((i * 31 + j * 17 + k * 7) % 23) / 23.0f +
                        (i == j && k % (BS + 1) == 0 ? 40.0f : 0.0f);
      }
    }
}

static void lu0(float* d) {
  for (int k = 0; k < BS; ++k)
    for (int i = k + 1; i < BS; ++i) {
      d[i * BS + k] /= d[k * BS + k];
      for (int j = k + 1; j < BS; ++j) d[i * BS + j] -= d[i * BS + k] * d[k * BS + j];
    }
}
static void fwd(const float* d, float* c) {
  for (int k = 0; k < BS; ++k)
    for (int i = k + 1; i < BS; ++i)
      for (int j = 0; j < BS; ++j) c[i * BS + j] -= d[i * BS + k] * c[k * BS + j];
}
static void bdiv(const float* d, float* r) {
  for (int i = 0; i < BS; ++i)
    for (int k = 0; k < BS; ++k) {
      r[i * BS + k] /= d[k * BS + k];
      for (int j = k + 1; j < BS; ++j) r[i * BS + j] -= r[i * BS + k] * d[k * BS + j];
    }
}
static void bmod(const float* r, const float* c, float* t) {
  for (int i = 0; i < BS; ++i)
    for (int j = 0; j < BS; ++j)
      for (int k = 0; k < BS; ++k) t[i * BS + j] -= r[i * BS + k] * c[k * BS + j];
}

static void sparselu(int tasks) {
  for (int k = 0; k < NB; ++k) {
    lu0(lu[k][k]);
    for (int j = k + 1; j < NB; ++j)
      if (lu[k][j]) {
#pragma omp task firstprivate(k, j) if (tasks)
        fwd(lu[k][k], lu[k][j]);
      }
    for (int i = k + 1; i < NB; ++i)
      if (lu[i][k]) {
#pragma omp task firstprivate(k, i) if (tasks)
        bdiv(lu[k][k], lu[i][k]);
      }
#pragma omp taskwait
    for (int i = k + 1; i < NB; ++i)
      if (lu[i][k])
        for (int j = k + 1; j < NB; ++j)
          if (lu[k][j]) {
            if (!lu[i][j]) lu[i][j] = block_new();
#pragma omp task firstprivate(k, i, j) if (tasks)
            bmod(lu[i][k], lu[k][j], lu[i][j]);
          }
#pragma omp taskwait
  }
}

static double lu_sum(void) {
  double s = 0;
  for (int i = 0; i < NB; ++i)
    for (int j = 0; j < NB; ++j)
      if (lu[i][j]) {
        for (int k = 0; k < BS * BS; ++k) s += lu[i][j][k] * (1 + (i + j + k) % 3);
        free(lu[i][j]);
      }
  return s;
}

/* Tiled Cholesky (lower), T x T tiles of TS x TS, dependencies on tiles. */
enum { T = 8, TS = 12 };
static double A[T][T][TS * TS];

static void chol_init(void) {
  const int n = T * TS;
  for (int gi = 0; gi < n; ++gi)
    for (int gj = 0; gj < n; ++gj)
      A[gi / TS][gj / TS][(gi % TS) * TS + gj % TS] =
          (gi == gj ? n : 0) + 1.0 / (1 + (gi > gj ? gi - gj : gj - gi));
}
static void potrf(double* a) {
  for (int k = 0; k < TS; ++k) {
    a[k * TS + k] = sqrt(a[k * TS + k]);
    for (int i = k + 1; i < TS; ++i) a[i * TS + k] /= a[k * TS + k];
    for (int j = k + 1; j < TS; ++j)
      for (int i = j; i < TS; ++i) a[i * TS + j] -= a[i * TS + k] * a[j * TS + k];
  }
}
static void trsm(const double* l, double* b) { /* b = b * l^-T */
  for (int r = 0; r < TS; ++r)
    for (int c = 0; c < TS; ++c) {
      double v = b[r * TS + c];
      for (int k = 0; k < c; ++k) v -= b[r * TS + k] * l[c * TS + k];
      b[r * TS + c] = v / l[c * TS + c];
    }
}
static void gemm(const double* x, const double* y, double* c) { /* c -= x * y^T */
  for (int i = 0; i < TS; ++i)
    for (int j = 0; j < TS; ++j) {
      double v = 0;
      for (int k = 0; k < TS; ++k) v += x[i * TS + k] * y[j * TS + k];
      c[i * TS + j] -= v;
    }
}

static void cholesky(void) {
  for (int k = 0; k < T; ++k) {
#pragma omp task depend(inout : A[k][k])
    potrf(A[k][k]);
    for (int i = k + 1; i < T; ++i) {
#pragma omp task depend(in : A[k][k]) depend(inout : A[i][k])
      trsm(A[k][k], A[i][k]);
    }
    for (int i = k + 1; i < T; ++i)
      for (int j = k + 1; j <= i; ++j) {
#pragma omp task depend(in : A[i][k], A[j][k]) depend(inout : A[i][j])
        gemm(A[i][k], A[j][k], A[i][j]);
      }
  }
#pragma omp taskwait
}

static double chol_sum(void) {
  double s = 0;
  for (int i = 0; i < T; ++i)
    for (int j = 0; j <= i; ++j)
      for (int k = 0; k < TS * TS; ++k) s += A[i][j][k] * (1 + k % 5);
  return s;
}

/* Blocked Jacobi: NBJ blocks, each sweep's block reads its neighbours of the
 * previous sweep (double buffer, dependencies on the blocks' first cells). */
enum { NBJ = 16, BJ = 64, SWEEPS = 20 };
static double u[2][NBJ * BJ + 2];

static void jacobi(int tasks) {
  for (int i = 0; i < NBJ * BJ + 2; ++i) u[0][i] = u[1][i] = (i * 7 % 13) / 13.0;
  for (int s = 0; s < SWEEPS; ++s) {
    double *src = u[s % 2], *dst = u[(s + 1) % 2];
    for (int b = 0; b < NBJ; ++b) {
      const int lo = 1 + b * BJ, prev = b ? lo - BJ : lo, next = b + 1 < NBJ ? lo + BJ : lo;
#pragma omp task depend(in : src[prev], src[lo], src[next]) depend(out : dst[lo]) if (tasks)
      for (int i = lo; i < lo + BJ; ++i) dst[i] = (src[i - 1] + src[i] + src[i + 1]) / 3.0;
    }
  }
#pragma omp taskwait
}

static double jacobi_sum(void) {
  double s = 0;
  for (int i = 0; i < NBJ * BJ + 2; ++i) s += u[SWEEPS % 2][i] * (1 + i % 4);
  return s;
}

int main(void) {
  long f = 0, ff = 0;
  double slu = 0, ch = 0, jac = 0;
#pragma omp parallel
#pragma omp single
  {
    f = fib(20);
    ff = fib_final(25);
    lu_init();
    sparselu(1);
    slu = lu_sum();
    chol_init();
    cholesky();
    ch = chol_sum();
    jacobi(1);
    jac = jacobi_sum();
  }
  CHECK(f == 6765 && ff == 75025);
  lu_init();
  sparselu(0);
  CHECK(lu_sum() == slu);
  const double ch_tasks = ch;
  chol_init();
  for (int k = 0; k < T; ++k) { /* the same operations in creation order */
    potrf(A[k][k]);
    for (int i = k + 1; i < T; ++i) trsm(A[k][k], A[i][k]);
    for (int i = k + 1; i < T; ++i)
      for (int j = k + 1; j <= i; ++j) gemm(A[i][k], A[j][k], A[i][j]);
  }
  CHECK(chol_sum() == ch_tasks);
  jacobi(0);
  CHECK(jacobi_sum() == jac);
  printf("fib %ld %ld sparselu %.9e cholesky %.12e jacobi %.12e\n", f, ff, slu, ch, jac);
  return finish("bots_tasks");
}
