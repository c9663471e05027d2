/* collapse(n > 1) taskloops whose dependencies use the loop variables: each
 * chunk depends on the box of elements its iterations touch
 * (docs/porting-ompss.md, 3.6). Checks the results, that chunks over
 * disjoint rows run concurrently (the first row's chunk waits for the last
 * row's to start: chunks ordered by a too-wide region would never meet)
 * and that readers never see data their writers have not written. */
#include <joule/joule.h>
#include <stdio.h>
#include <time.h>

#define N 8
#define M 6
#define NB 3
#define BS 4

static double a[N][M], b[N][M], c[N][M], lin[N * M], blk[NB * BS][NB * BS];
static int t3[3][4][5];
static int started[N], early_reads, met = 1;

/* Waits, for at most 60 s, for *flag; 0 when it never came. */
static int wait_for(const int *flag) {
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
    clock_gettime(CLOCK_MONOTONIC, &t);
    if (t.tv_sec - t0.tv_sec > 60) return 0;
  }
  return 1;
}

static void check_written(double v) {
  if (v < 0) __atomic_fetch_add(&early_reads, 1, __ATOMIC_RELAXED);
}

int main(void) {
  const int parallel = joule_num_workers() > 1;
  int bad = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) a[i][j] = i * 10 + j, b[i][j] = c[i][j] = lin[i * M + j] = -1;
  /* One row per chunk: the rows are independent, so chunks run together. */
#pragma oss taskloop collapse(2) grainsize(M) in(a[i][j]) out(b[i][j])
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      if (j == 0) __atomic_store_n(&started[i], 1, __ATOMIC_RELEASE);
      if (i == 0 && j == 0 && parallel) met = wait_for(&started[N - 1]);
      b[i][j] = 2 * a[i][j];
    }
  /* Chunks of 4 cross rows (whole rows registered) or not (a part of one);
   * M - 1 - j decreases with j. */
#pragma oss taskloop collapse(2) grainsize(4) in(b[i][j], b[i][M - 1 - j]) out(c[i][j])
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      check_written(b[i][j]);
      check_written(b[i][M - 1 - j]);
      c[i][j] = b[i][j] + b[i][M - 1 - j];
    }
  /* A subscript over both variables. */
#pragma oss taskloop collapse(2) grainsize(7) in(c[i][j]) out(lin[i * M + j])
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      check_written(c[i][j]);
      lin[i * M + j] = c[i][j] + 1;
    }
  /* Counting down, with a step: half the columns. */
#pragma oss taskloop collapse(2) grainsize(3) inout(lin[i * M + j])
  for (int i = N - 1; i >= 0; i--)
    for (int j = M - 1; j >= 0; j -= 2) {
      check_written(lin[i * M + j]);
      lin[i * M + j] += 1000;
    }
  /* Blocks of a matrix, one per chunk; then one task on one block. */
#pragma oss taskloop collapse(2) grainsize(1) out(blk[bi * BS; BS][bj * BS; BS])
  for (int bi = 0; bi < NB; bi++)
    for (int bj = 0; bj < NB; bj++)
      for (int x = 0; x < BS; x++)
        for (int y = 0; y < BS; y++) blk[bi * BS + x][bj * BS + y] = bi * NB + bj;
#pragma oss task inout(blk[BS; BS][2 * BS; BS])
  for (int x = 0; x < BS; x++)
    for (int y = 0; y < BS; y++) blk[BS + x][2 * BS + y] *= 10;
  /* Three levels, chunks of 5 that cross both inner loops. */
#pragma oss taskloop collapse(3) grainsize(5) out(t3[i][j][k])
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++)
      for (int k = 0; k < 5; k++) t3[i][j][k] = 100 * i + 10 * j + k;
#pragma oss taskloop collapse(3) grainsize(7) inout(t3[i][j][k])
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++)
      for (int k = 0; k < 5; k++) t3[i][j][k] += 1;
#pragma oss taskwait
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      double want = 2 * a[i][j] + 2 * a[i][M - 1 - j] + 1 + ((M - 1 - j) % 2 == 0 ? 1000 : 0);
      if (lin[i * M + j] != want) bad++;
    }
  for (int x = 0; x < NB * BS; x++)
    for (int y = 0; y < NB * BS; y++) {
      int v = (x / BS) * NB + y / BS;
      if (blk[x][y] != (x / BS == 1 && y / BS == 2 ? 10 * v : v)) bad++;
    }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++)
      for (int k = 0; k < 5; k++) bad += t3[i][j][k] != 100 * i + 10 * j + k + 1;
  if (!met) printf("FAIL: the chunks of independent rows did not run concurrently\n");
  if (early_reads) printf("FAIL: %d reads before the write\n", early_reads);
  if (bad) printf("FAIL: %d wrong results\n", bad);
  if (met && !early_reads && !bad) printf("OK\n");
  return met && !early_reads && !bad ? 0 : 1;
}
