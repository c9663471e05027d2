/* Tiled Cholesky with function tasks and [ts][ts]A shaping (the tile size is
 * a parameter of the task functions). Checked by L * L^T == A. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#pragma omp task inout([ts][ts]A)
void potrf_tile(double *A, int ts);
#pragma omp task in([ts][ts]A) inout([ts][ts]B)
void trsm_tile(double *A, double *B, int ts);
#pragma omp task in([ts][ts]A) inout([ts][ts]C)
void syrk_tile(double *A, double *C, int ts);
#pragma omp task in([ts][ts]A, [ts][ts]B) inout([ts][ts]C)
void gemm_tile(double *A, double *B, double *C, int ts);

/* Tiles are row-major ts x ts; the lower triangle holds L. */
void potrf_tile(double *A, int ts) {
  for (int j = 0; j < ts; j++) {
    double s = A[j * ts + j];
    for (int k = 0; k < j; k++) s -= A[j * ts + k] * A[j * ts + k];
    A[j * ts + j] = sqrt(s);
    for (int i = j + 1; i < ts; i++) {
      double t = A[i * ts + j];
      for (int k = 0; k < j; k++) t -= A[i * ts + k] * A[j * ts + k];
      A[i * ts + j] = t / A[j * ts + j];
    }
    for (int i = 0; i < j; i++) A[i * ts + j] = 0;
  }
}

/* B := B * L^-T where L is the lower tile A. */
void trsm_tile(double *A, double *B, int ts) {
  for (int i = 0; i < ts; i++)
    for (int j = 0; j < ts; j++) {
      double t = B[i * ts + j];
      for (int k = 0; k < j; k++) t -= B[i * ts + k] * A[j * ts + k];
      B[i * ts + j] = t / A[j * ts + j];
    }
}

/* C := C - A * A^T */
void syrk_tile(double *A, double *C, int ts) {
  for (int i = 0; i < ts; i++)
    for (int j = 0; j < ts; j++)
      for (int k = 0; k < ts; k++) C[i * ts + j] -= A[i * ts + k] * A[j * ts + k];
}

/* C := C - A * B^T */
void gemm_tile(double *A, double *B, double *C, int ts) {
  for (int i = 0; i < ts; i++)
    for (int j = 0; j < ts; j++)
      for (int k = 0; k < ts; k++) C[i * ts + j] -= A[i * ts + k] * B[j * ts + k];
}

int main(void) {
  const int nt = 4, ts = 10, n = nt * ts;
  double **T = malloc(sizeof(double *) * nt * nt);
  double *orig = malloc(sizeof(double) * n * n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) orig[i * n + j] = (i == j ? n : 0) + 1.0 / (1 + i + j);
  for (int bi = 0; bi < nt; bi++)
    for (int bj = 0; bj < nt; bj++) {
      double *t = malloc(sizeof(double) * ts * ts);
      for (int i = 0; i < ts; i++)
        for (int j = 0; j < ts; j++) t[i * ts + j] = orig[(bi * ts + i) * n + bj * ts + j];
      T[bi * nt + bj] = t;
    }
  for (int k = 0; k < nt; k++) {
    potrf_tile(T[k * nt + k], ts);
    for (int i = k + 1; i < nt; i++) trsm_tile(T[k * nt + k], T[i * nt + k], ts);
    for (int i = k + 1; i < nt; i++) {
      for (int j = k + 1; j < i; j++) gemm_tile(T[i * nt + k], T[j * nt + k], T[i * nt + j], ts);
      syrk_tile(T[i * nt + k], T[i * nt + i], ts);
    }
  }
#pragma omp taskwait
  double err = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++) {
      double s = 0;
      for (int k = 0; k <= j; k++) {
        double lik = T[(i / ts) * nt + k / ts][(i % ts) * ts + k % ts];
        double ljk = T[(j / ts) * nt + k / ts][(j % ts) * ts + k % ts];
        s += lik * ljk;
      }
      double d = fabs(s - orig[i * n + j]);
      if (d > err) err = d;
    }
  printf("cholesky: max |LL^T - A| %g\n", err);
  for (int i = 0; i < nt * nt; i++) free(T[i]);
  free(T);
  free(orig);
  if (err > 1e-9) return 1;
  printf("OK\n");
  return 0;
}
