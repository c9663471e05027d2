/* Blocked Cholesky (OmpSs-2): task functions on blocks reached through
   pointers, dependencies written with shaping ([BS][BS]p). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NB 4
#define BS 16

#pragma oss task inout([BS][BS] a)
void potrf(double *a) {
  for (int k = 0; k < BS; k++) {
    a[k * BS + k] = sqrt(a[k * BS + k]);
    for (int i = k + 1; i < BS; i++) a[i * BS + k] /= a[k * BS + k];
    for (int j = k + 1; j < BS; j++)
      for (int i = j; i < BS; i++) a[i * BS + j] -= a[i * BS + k] * a[j * BS + k];
  }
}

#pragma oss task in([BS][BS] d)inout([BS][BS] b)
void trsm(const double *d, double *b) {
  for (int i = 0; i < BS; i++)
    for (int k = 0; k < BS; k++) {
      b[i * BS + k] /= d[k * BS + k];
      for (int j = k + 1; j < BS; j++) b[i * BS + j] -= b[i * BS + k] * d[j * BS + k];
    }
}

#pragma oss task in([BS][BS] x, [BS][BS] y)inout([BS][BS] c)
void gemm(const double *x, const double *y, double *c) {
  for (int i = 0; i < BS; i++)
    for (int j = 0; j < BS; j++)
      for (int k = 0; k < BS; k++) c[i * BS + j] -= x[i * BS + k] * y[j * BS + k];
}

int main(void) {
  double *blk[NB][NB];
  const int n = NB * BS;
  for (int bi = 0; bi < NB; bi++)
    for (int bj = 0; bj < NB; bj++) {
      blk[bi][bj] = (double *)malloc(BS * BS * sizeof(double));
      for (int i = 0; i < BS; i++)
        for (int j = 0; j < BS; j++) {
          int gi = bi * BS + i, gj = bj * BS + j;
          blk[bi][bj][i * BS + j] = gi == gj ? n + 1.0 : 1.0 / (1.0 + gi + gj);
        }
    }
  for (int k = 0; k < NB; k++) {
    potrf(blk[k][k]);
    for (int i = k + 1; i < NB; i++) trsm(blk[k][k], blk[i][k]);
    for (int i = k + 1; i < NB; i++)
      for (int j = k + 1; j <= i; j++) gemm(blk[i][k], blk[j][k], blk[i][j]);
  }
#pragma oss taskwait
  double sum = 0;
  for (int bi = 0; bi < NB; bi++)
    for (int bj = 0; bj <= bi; bj++) {
      for (int i = 0; i < BS; i++)
        for (int j = 0; j < BS; j++)
          if (bi > bj || j <= i) sum += blk[bi][bj][i * BS + j];
      free(blk[bi][bj]);
    }
  for (int bi = 0; bi < NB; bi++)
    for (int bj = bi + 1; bj < NB; bj++) free(blk[bi][bj]);
  printf("L checksum %.9e\n", sum);
  return 0;
}
