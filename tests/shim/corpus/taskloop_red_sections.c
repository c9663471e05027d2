/* Taskloop reductions on pointer parameters and array sections, created by
   functions that return before the taskwait: the chunks must reach the data
   through the pointer's value, and reduce every element of the section. */
/* The pragmas keep OmpSs spacing. */
// clang-format off
#include <stdio.h>

#define N 6000
#define BINS 7

static int v[N];

static void total(long *sum, int lo, int hi) {
#pragma oss taskloop grainsize(97) reduction(+ : [1]sum)
  for (int i = lo; i < hi; i++) sum[0] += v[i];
}

static void largest(int *best, int lo, int hi) {
#pragma oss taskloop grainsize(50) reduction(max : best[0; 1])
  for (int i = lo; i < hi; i++)
    if (v[i] > *best) *best = v[i];
}

static void histogram(long *h, int n, int lo, int hi) {
#pragma oss taskloop grainsize(128) reduction(+ : [n]h)
  for (int i = lo; i < hi; i++) h[v[i] % n] += 1;
}

int main(void) {
  long sum = 0, h[BINS] = {0}, local[10] = {0};
  int best = -1;
  double prod[4] = {1, 1, 1, 1};
  for (int i = 0; i < N; i++) v[i] = (i * 7919) % 1009;
  for (int b = 0; b < N; b += 1000) {
    total(&sum, b, b + 1000);
    largest(&best, b, b + 1000);
    histogram(h, BINS, b, b + 1000);
  }
  /* A section of a local array: elements 2..6 only. */
#pragma oss taskloop grainsize(300) reduction(+ : local[2; 5])
  for (int i = 0; i < N; i++) local[2 + i % 5] += v[i] & 3;
#pragma oss taskloop num_tasks(4) reduction(* : prod[1:2])
  for (int i = 0; i < 40; i++) prod[1 + i % 2] *= 1.5;
#pragma oss taskwait
  printf("sum %ld best %d\n", sum, best);
  for (int k = 0; k < BINS; k++) printf("h[%d] %ld\n", k, h[k]);
  for (int k = 0; k < 10; k++) printf("local[%d] %ld\n", k, local[k]);
  for (int k = 0; k < 4; k++) printf("prod[%d] %.3f\n", k, prod[k]);
  return 0;
}
