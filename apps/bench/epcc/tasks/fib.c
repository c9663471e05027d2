/* Recursive task code with a manual cutoff: fib(n) with `task` +
 * `taskwait`, serial below the cutoff (the BOTS fib pattern).
 *
 *   fib [n=30] [cutoff=10] [reps=5] */
#include "suite.h"

static int g_n = 30, g_cutoff = 10;

static long fib_serial(int n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

static long fib_task(int n) {
  if (n < g_cutoff) return fib_serial(n);
  long a = 0, b = 0;
#pragma omp task shared(a)
  a = fib_task(n - 1);
#pragma omp task shared(b)
  b = fib_task(n - 2);
#pragma omp taskwait
  return a + b;
}

static long fib_iterative(int n) {
  long a = 0, b = 1;
  for (int i = 0; i < n; ++i) {
    const long c = a + b;
    a = b;
    b = c;
  }
  return a;
}

static int kernel(void *unused) {
  (void)unused;
  long r = 0;
#pragma omp parallel
#pragma omp single
  r = fib_task(g_n);
  return r != fib_iterative(g_n);
}

int main(int argc, char **argv) {
  g_n = suite_arg(argc, argv, 1, g_n);
  g_cutoff = suite_arg(argc, argv, 2, g_cutoff);
  return suite_main("fib", suite_arg(argc, argv, 3, 5), kernel, NULL);
}
