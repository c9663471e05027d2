/* k-means (Lloyd) in point blocks (OmpSs-2): each block's task assigns its
   points to the nearest centroid and accumulates per-cluster coordinate sums
   and counts with array reductions; one task then moves the centroids. The
   points have integer coordinates and the sums are integers, so every fold
   order gives the sequential sums and the same centroids. */
/* The pragmas keep OmpSs spacing. */
// clang-format off
#include <stdio.h>
#include <stdlib.h>

#define NPTS 200000
#define D 4
#define K 10
#define BS 5000
#define ITERS 60

static int pts[NPTS * D];
static int label[NPTS];
static double cent[K * D];

static void assign(const int *pt, int *lab, int n, const double *c, long *sums, long *counts) {
  for (int i = 0; i < n; i++) {
    int best = 0;
    double bestd = 0;
    for (int k = 0; k < K; k++) {
      double d2 = 0;
      for (int j = 0; j < D; j++) {
        double t = pt[i * D + j] - c[k * D + j];
        d2 += t * t;
      }
      if (k == 0 || d2 < bestd) {
        best = k;
        bestd = d2;
      }
    }
    lab[i] = best;
    counts[best] += 1;
    for (int j = 0; j < D; j++) sums[best * D + j] += pt[i * D + j];
  }
}

int main(void) {
  long *sums = (long *)calloc(K * D, sizeof(long));
  long *counts = (long *)calloc(K, sizeof(long));
  int kd = K * D, k = K;
  /* K blobs with an LCG scatter; the first K points seed the centroids */
  unsigned s = 12345;
  for (int i = 0; i < NPTS; i++)
    for (int j = 0; j < D; j++) {
      s = s * 1103515245u + 12345u;
      pts[i * D + j] = (i % K) * 100 * (j + 1) % 997 + (int)((s >> 16) % 400);
    }
  for (int i = 0; i < K * D; i++) cent[i] = pts[i];
  for (int it = 0; it < ITERS; it++) {
#pragma oss task out(sums[0; kd], counts[0; k])
    {
      for (int i = 0; i < K * D; i++) sums[i] = 0;
      for (int c = 0; c < K; c++) counts[c] = 0;
    }
    for (int b = 0; b < NPTS; b += BS) {
#pragma oss task in(pts[b * D; BS * D], cent[0; kd]) out(label[b; BS]) \
                 reduction(+ : [kd]sums, [k]counts) firstprivate(b)
      assign(&pts[b * D], &label[b], BS, cent, sums, counts);
    }
    /* an empty cluster keeps its centroid */
#pragma oss task in(sums[0; kd], counts[0; k]) out(cent[0; kd])
    for (int c = 0; c < K; c++)
      if (counts[c] > 0)
        for (int j = 0; j < D; j++) cent[c * D + j] = (double)sums[c * D + j] / counts[c];
  }
#pragma oss taskwait
  long lsum = 0;
  for (int i = 0; i < NPTS; i++) lsum += (long)label[i] * (i % 13 + 1);
  printf("labels %ld\n", lsum);
  for (int c = 0; c < K; c++) {
    printf("cluster %d count %ld", c, counts[c]);
    for (int j = 0; j < D; j++) printf(" %.6f", cent[c * D + j]);
    printf("\n");
  }
  free(sums);
  free(counts);
  return 0;
}
