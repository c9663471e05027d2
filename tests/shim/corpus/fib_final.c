/* Recursive divide and conquer (OmpSs-1): tasks down to a cutoff, then
   final tasks whose descendants run inline. */
#include <stdio.h>

#define CUTOFF 12

static long fib_seq(int n) { return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2); }

static long fib(int n, int depth) {
  long x, y;
  if (n < 2) return n;
  if (depth > 20) return fib_seq(n);
#pragma omp task shared(x) firstprivate(n, depth) final(n < CUTOFF) untied
  x = fib(n - 1, depth + 1);
#pragma omp task shared(y) firstprivate(n, depth) final(n < CUTOFF) mergeable
  y = fib(n - 2, depth + 1);
#pragma omp taskwait
  return x + y;
}

int main(void) {
  for (int n = 10; n <= 24; n += 7) printf("fib(%d) = %ld\n", n, fib(n, 0));
  return 0;
}
