/* critical (unnamed and named) and atomic updates from many tasks. */
#include <omp.h>
#include <stdio.h>

int main(void) {
  long counter = 0, other = 0, atomics = 0;
  int max_worker = 0;
  double t0 = omp_get_wtime();
  for (int i = 0; i < 500; i++) {
#pragma omp task shared(counter, other, atomics, max_worker)
    {
#pragma omp critical
      {
        long c = counter;
        for (volatile int s = 0; s < 50; s++) {
        }
        counter = c + 1;
        if (omp_get_thread_num() > max_worker) max_worker = omp_get_thread_num();
      }
#pragma oss critical(second)
      other += 2;
#pragma oss atomic
      atomics++;
    }
  }
#pragma omp taskwait
  double t1 = omp_get_wtime();
  printf("critical: %ld %ld %ld workers %d max id %d (%.3f s)\n", counter, other, atomics,
         omp_get_num_threads(), max_worker, t1 - t0);
  if (counter != 500 || other != 1000 || atomics != 500) return 1;
  if (omp_get_max_threads() < 1 || max_worker >= omp_get_num_threads() || t1 < t0) return 1;
  printf("OK\n");
  return 0;
}
