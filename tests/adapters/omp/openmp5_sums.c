/* The ten-line program, grown a little: OpenMP 5 task reductions and
 * a target region written for GPU nodes, run on a CPU-only node. Prints sums
 * a conforming runtime cannot change; compared with libgomp's output. */
#include <omp.h>
#include <stdio.h>

#define N 10000

static double a[N];

int main(void) {
  for (int i = 0; i < N; ++i) a[i] = i % 7;
  long tl = 0;
  double tg = 0, tt = 0;
#pragma omp parallel
#pragma omp single
  {
#pragma omp taskloop reduction(+ : tl) grainsize(100)
    for (int i = 0; i < N; ++i) tl += i;
#pragma omp taskgroup task_reduction(+ : tg)
    for (int i = 0; i < N; i += 1000)
#pragma omp task in_reduction(+ : tg) firstprivate(i)
      for (int j = i; j < i + 1000; ++j) tg += a[j];
  }
#pragma omp target teams distribute parallel for reduction(+ : tt) map(to : a)
  for (int i = 0; i < N; ++i) tt += 2 * a[i];
  printf("taskloop %ld taskgroup %.1f target %.1f devices %d initial %d\n", tl, tg, tt,
         omp_get_num_devices(), omp_is_initial_device());
  double sum = 0;
  for (int i = 0; i < N; ++i) sum += a[i];
  const int ok = tl == (long)N * (N - 1) / 2 && tg == sum && tt == 2 * sum;
  printf("openmp5_sums: %s\n", ok ? "OK" : "WRONG");
  return ok ? 0 : 1;
}
