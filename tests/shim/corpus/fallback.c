/* A program with sequential fallbacks: it includes <omp.h> and defines
   macros for the omp_* calls when _OPENMP is not defined (as public OmpSs
   and OpenMP codes do); under joulecc it gets joule's <omp.h>. */
#include <omp.h>
#include <stdio.h>
#include <time.h>
#ifndef _OPENMP
#define omp_get_thread_num() 0
#define omp_get_num_threads() 1
#define omp_get_max_threads() 1
#define omp_in_parallel() 0
#define omp_get_num_procs() 1
#define omp_get_wtime() ((double)clock() / CLOCKS_PER_SEC)
#define omp_get_wtick() (1.0 / CLOCKS_PER_SEC)
#endif

static int bad;

int main(void) {
  double t0 = omp_get_wtime();
  int nth = omp_get_num_threads();
  if (nth < 1 || omp_get_max_threads() != nth || omp_get_num_procs() < 1) bad++;
  for (int i = 0; i < 32; i++) {
#pragma omp task
    {
      int me = omp_get_thread_num();
      if (me < 0 || me >= nth) {
#pragma omp atomic
        bad++;
      }
    }
  }
#pragma omp taskwait
  if (omp_get_wtime() < t0 || omp_get_wtick() <= 0) bad++;
  if (omp_in_parallel() != (nth > 1)) bad++;
  printf("checks failed: %d\n", bad);
  return 0;
}
