/* Blocked LU (OmpSs-1, as in the Nanos++ examples): task functions whose
   pragmas sit in #ifdef _OMPSS blocks, dependencies on array parameters
   with shaping. */
#include <stdio.h>

#define NB 4
#define B 8
#define N (NB * B)

static double A[N][N];

#ifdef _OMPSS
#pragma omp task inout([B] k_block)
#endif
void lu0(int kk, double k_block[B][N]) {
  for (int k = 0; k < B; k++)
    for (int i = k + 1; i < B; i++) {
      k_block[i][kk + k] /= k_block[k][kk + k];
      for (int j = k + 1; j < B; j++) k_block[i][kk + j] -= k_block[i][kk + k] * k_block[k][kk + j];
    }
}

#ifdef _OMPSS
#pragma omp task in([B] diag)inout([B] row)
#endif
void fwd(int kk, int jj, double diag[B][N], double row[B][N]) {
  for (int k = 0; k < B; k++)
    for (int i = k + 1; i < B; i++)
      for (int j = 0; j < B; j++) row[i][jj + j] -= diag[i][kk + k] * row[k][jj + j];
}

#ifdef _OMPSS
#pragma omp task in([B] diag)inout([B] col)
#endif
void bdiv(int kk, int ii, double diag[B][N], double col[B][N]) {
  for (int i = 0; i < B; i++)
    for (int k = 0; k < B; k++) {
      col[i][kk + k] /= diag[k][kk + k];
      for (int j = k + 1; j < B; j++) col[i][kk + j] -= col[i][kk + k] * diag[k][kk + j];
    }
  (void)ii;
}

#ifdef _OMPSS
#pragma omp task in([B] row, [B] col)inout([B] inner)
#endif
void bmod(int kk, int ii, int jj, double row[B][N], double col[B][N], double inner[B][N]) {
  for (int i = 0; i < B; i++)
    for (int j = 0; j < B; j++)
      for (int k = 0; k < B; k++) inner[i][jj + j] -= col[i][kk + k] * row[k][jj + j];
  (void)ii;
}

int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) A[i][j] = (i == j) ? N + 1.0 : 1.0 / (1 + i + 2 * j);
  /* Each block row is its own region: tasks depend on whole block rows. */
  for (int k = 0; k < NB; k++) {
    lu0(k * B, &A[k * B]);
    for (int j = k + 1; j < NB; j++) fwd(k * B, j * B, &A[k * B], &A[k * B]);
    for (int i = k + 1; i < NB; i++) {
      bdiv(k * B, i * B, &A[k * B], &A[i * B]);
      for (int j = k + 1; j < NB; j++) bmod(k * B, i * B, j * B, &A[k * B], &A[i * B], &A[i * B]);
    }
  }
#pragma omp taskwait
  double sum = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) sum += A[i][j] * (1 + (i + j) % 3);
  printf("checksum %.9e\n", sum);
  return 0;
}
