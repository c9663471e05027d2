/* STREAM-like kernels on blocks with in/out sections, [lo:hi] inclusive
 * bounds as in the OmpSs introduction example, and priority/label clauses. */
#include <stdio.h>
#include <stdlib.h>

#define N 40000
#define BS 4000
#define NTIMES 5

static double a[N], b[N], c[N];

int main(void) {
  const double s = 3.0;
  for (int j = 0; j < N; j += BS) {
#pragma oss task out(a[j:j+BS-1], b[j:j+BS-1], c[j:j+BS-1]) label(init)
    for (int i = j; i < j + BS; i++) {
      a[i] = 1.0;
      b[i] = 2.0;
      c[i] = 0.0;
    }
  }
  for (int k = 0; k < NTIMES; k++) {
    for (int j = 0; j < N; j += BS) {
#pragma oss task in(a[j;BS]) out(c[j;BS]) label(copy)
      for (int i = j; i < j + BS; i++) c[i] = a[i];
    }
    for (int j = 0; j < N; j += BS) {
#pragma oss task in(c[j:j+BS-1]) out(b[j:j+BS-1]) label(scale) priority(1)
      for (int i = j; i < j + BS; i++) b[i] = s * c[i];
    }
    for (int j = 0; j < N; j += BS) {
#pragma oss task in(a[j;BS], b[j;BS]) out(c[j;BS]) label(add)
      for (int i = j; i < j + BS; i++) c[i] = a[i] + b[i];
    }
    for (int j = 0; j < N; j += BS) {
#pragma oss task in(b[j;BS], c[j;BS]) out(a[j;BS]) label(triad) cost(BS)
      for (int i = j; i < j + BS; i++) a[i] = b[i] + s * c[i];
    }
  }
#pragma oss taskwait
  double ea = 1.0, eb = 2.0, ec = 0.0;
  for (int k = 0; k < NTIMES; k++) {
    ec = ea;
    eb = s * ec;
    ec = ea + eb;
    ea = eb + s * ec;
  }
  for (int i = 0; i < N; i++)
    if (a[i] != ea || b[i] != eb || c[i] != ec) {
      printf("stream: wrong value at %d\n", i);
      return 1;
    }
  printf("OK\n");
  return 0;
}
