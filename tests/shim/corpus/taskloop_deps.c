/* OmpSs-2 taskloops whose dependencies use the loop variable: each chunk
   depends on the elements its own iterations touch, so a second taskloop
   over the result (and a task on part of it) waits only for what it reads. */
/* The pragmas keep OmpSs spacing. */
// clang-format off
#include <stdio.h>

#define N 4096
#define BS 64

static double a[N], b[N], c[N], d[N / BS];

static double f(double x) { return x * 0.5 + 1.0; }

int main(void) {
  double total = 0;
  int n = N, bs = BS;
  for (int i = 0; i < N; i++) a[i] = (i * 7) % 13;
#pragma oss taskloop grainsize(100) in(a[i]) out(b[i])
  for (int i = 0; i < n; i++) b[i] = f(a[i]);
#pragma oss taskloop grainsize(3) in(b[i; bs]) out(c[i; bs])
  for (int i = 0; i < n; i += bs)
    for (int k = i; k < i + bs; k++) c[k] = b[k] + (k > 0 ? b[k - 1] : 0.0);
#pragma oss taskloop chunksize(5) in(c[i * bs : i * bs + bs - 1]) out(d[i])
  for (int i = 0; i < n / bs; i++) {
    double s = 0;
    for (int k = 0; k < bs; k++) s += c[i * bs + k];
    d[i] = s;
  }
#pragma oss taskloop in(d[n / bs - 1 - i]) inout(a[(n / bs - 1 - i) * bs])
  for (int i = 0; i < n / bs; i++) a[(n / bs - 1 - i) * bs] += d[n / bs - 1 - i];
#pragma oss taskloop grainsize(256) in(a[i]) reduction(+ : total)
  for (int i = 0; i < n; i++) total += a[i];
#pragma oss task in(a[0; n]) inout(total)
  total = total * 2 - a[0];
#pragma oss taskwait
  printf("total %.2f c[100] %.2f d[7] %.2f\n", total, c[100], d[7]);
  return 0;
}
