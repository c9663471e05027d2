/* Taskloop reductions over multi-dimensional sections and shaped pointers
 * (docs/porting-ompss.md, 3.3): each chunk reduces into a private copy,
 * folded into the data element by element; elements inside the region's
 * span that the section skips keep their values. */
#include <stdio.h>

#define N 6
#define M 5
#define ITER 60

static long h[N][M], g[N][M], flat[N * M];

/* A pointer to rows, reduced with max. */
static void row_max(long (*r)[M], int n) {
#pragma oss taskloop grainsize(7) reduction(max : r[0; N][0; M])
  for (int it = 0; it < n; it++)
    for (int j = 0; j < M; j++)
      if (it * (j + 1) > r[it % N][j]) r[it % N][j] = it * (j + 1);
#pragma oss taskwait
}

int main(void) {
  int n = N, m = M, bad = 0;
  long *p = flat;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) h[i][j] = 1000, g[i][j] = -1, flat[i * M + j] = 7;
  /* The whole array. */
#pragma oss taskloop grainsize(4) reduction(+ : h[0; N][0; M])
  for (int it = 0; it < ITER; it++) h[it % N][it % M] += it;
  /* A block inside it: rows 1-2, columns 1-3 (columns 0 and 4 of row 2 and
   * column 4 of row 1 lie inside the span and are skipped). */
#pragma oss taskloop grainsize(5) reduction(+ : h[1; 2][1; 3])
  for (int it = 0; it < ITER; it++) h[1 + it % 2][1 + it % 3] += 1;
  /* A shaped pointer, [n][m]p, and a section of one. */
#pragma oss taskloop grainsize(3) reduction(+ : [n][m]p)
  for (int it = 0; it < ITER; it++) p[(it % n) * m + it % m] += 2;
  /* Another operator on part of the same data: ordered after the sums. */
#pragma oss taskloop grainsize(3) reduction(* : ([n][m]p)[2; 1][0; 2])
  for (int it = 0; it < 4; it++) p[2 * m + it % 2] *= 3;
  row_max(g, 40);
#pragma oss taskwait
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      long want = 1000, wantp = 7, wantg = -1;
      for (int it = 0; it < ITER; it++) {
        if (it % N == i && it % M == j) want += it, wantp += 2;
        if (1 + it % 2 == i && 1 + it % 3 == j) want += 1;
      }
      if (i == 2 && j < 2) wantp *= 9;
      for (int it = 0; it < 40; it++)
        if (it % N == i && it * (j + 1) > wantg) wantg = it * (j + 1);
      if (h[i][j] != want || flat[i * M + j] != wantp || g[i][j] != wantg) {
        printf("[%d][%d]: h %ld (want %ld) flat %ld (want %ld) g %ld (want %ld)\n", i, j,
               h[i][j], want, flat[i * M + j], wantp, g[i][j], wantg);
        bad++;
      }
    }
  if (!bad) printf("OK\n");
  return bad ? 1 : 0;
}
