/* Blocked LU factorization (no pivoting) with OmpSs-1 function tasks and
 * shaping, in the style of the OmpSs LUB example. Checked against an
 * unblocked LU of the same matrix. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NB 4
#define BS 12
#define N (NB * BS)

#pragma omp task inout([BS][BS]diag) label(lu0)
void lu0(double *diag);
#pragma omp task in([BS * BS]diag) inout([BS][BS]row)
void fwd(double *diag, double *row);
#pragma omp task in([BS][BS]diag) inout([BS][BS]col)
void bdiv(double *diag, double *col);
#pragma omp task in([BS][BS]row, [BS][BS]col) inout([BS][BS]inner)
void bmod(double *row, double *col, double *inner);

void lu0(double *d) {
  for (int k = 0; k < BS; k++)
    for (int i = k + 1; i < BS; i++) {
      d[i * BS + k] /= d[k * BS + k];
      for (int j = k + 1; j < BS; j++) d[i * BS + j] -= d[i * BS + k] * d[k * BS + j];
    }
}

void fwd(double *d, double *r) {
  for (int k = 0; k < BS; k++)
    for (int i = k + 1; i < BS; i++)
      for (int j = 0; j < BS; j++) r[i * BS + j] -= d[i * BS + k] * r[k * BS + j];
}

void bdiv(double *d, double *c) {
  for (int i = 0; i < BS; i++)
    for (int k = 0; k < BS; k++) {
      c[i * BS + k] /= d[k * BS + k];
      for (int j = k + 1; j < BS; j++) c[i * BS + j] -= c[i * BS + k] * d[k * BS + j];
    }
}

void bmod(double *r, double *c, double *inner) {
  for (int i = 0; i < BS; i++)
    for (int k = 0; k < BS; k++)
      for (int j = 0; j < BS; j++) inner[i * BS + j] -= c[i * BS + k] * r[k * BS + j];
}

static double value(int i, int j) { return i == j ? 4.0 * N : 1.0 / (1.0 + i + 2 * j); }

int main(void) {
  double *A[NB][NB];
  static double ref[N][N];
  for (int bi = 0; bi < NB; bi++)
    for (int bj = 0; bj < NB; bj++) {
      A[bi][bj] = malloc(sizeof(double) * BS * BS);
      for (int i = 0; i < BS; i++)
        for (int j = 0; j < BS; j++) A[bi][bj][i * BS + j] = value(bi * BS + i, bj * BS + j);
    }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) ref[i][j] = value(i, j);

  for (int k = 0; k < NB; k++) {
    lu0(A[k][k]);
    for (int j = k + 1; j < NB; j++) fwd(A[k][k], A[k][j]);
    for (int i = k + 1; i < NB; i++) bdiv(A[k][k], A[i][k]);
    for (int i = k + 1; i < NB; i++)
      for (int j = k + 1; j < NB; j++) bmod(A[k][j], A[i][k], A[i][j]);
  }
#pragma omp taskwait

  for (int k = 0; k < N; k++)
    for (int i = k + 1; i < N; i++) {
      ref[i][k] /= ref[k][k];
      for (int j = k + 1; j < N; j++) ref[i][j] -= ref[i][k] * ref[k][j];
    }
  double err = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      double d = fabs(A[i / BS][j / BS][(i % BS) * BS + j % BS] - ref[i][j]);
      if (d > err) err = d;
    }
  for (int bi = 0; bi < NB; bi++)
    for (int bj = 0; bj < NB; bj++) free(A[bi][bj]);
  printf("lu: max error %g\n", err);
  if (err > 1e-9) return 1;
  printf("OK\n");
  return 0;
}
