/* target in_reduction among task in_reduction, many times (target.c's
 * in_reductions, with a wider window). GCC remaps a target's in_reduction
 * item in the encountering task, before GOMP_target_ext, so the region adds
 * to the copy of the thread number the encountering thread holds; tasks
 * adding to the same reduction run meanwhile on other workers, under a
 * thread number they borrow. The region reads the copy, pauses, then
 * writes it: were that thread number lendable while the region runs, a
 * task's addition made in the pause would be lost (the sum comes out
 * short by 100 * k). Run with more workers than team members too: the
 * extra workers run the tasks while the team's members are busy. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"

static void pause_us(long us) {
  struct timespec ts = {0, us * 1000};
  nanosleep(&ts, NULL);
}

/* The bug's pattern: one thread makes the targets and the tasks. */
static long single_maker(void) {
  long r = 0;
#pragma omp parallel
#pragma omp single
#pragma omp taskgroup task_reduction(+ : r)
  for (int k = 1; k <= 10; ++k) {
#pragma omp target in_reduction(+ : r) firstprivate(k)
    {
      long v = r;
      pause_us(100);
      r = v + k;
    }
#pragma omp task in_reduction(+ : r) firstprivate(k)
    r += 100 * k;
  }
  return r;
}

/* Every member makes targets and tasks (parallel reduction(task, ...)). */
static long every_member(int* threads) {
  long r = 0;
#pragma omp parallel reduction(task, + : r)
  {
#pragma omp single
    *threads = omp_get_num_threads();
    for (int k = 1; k <= 10; ++k) {
#pragma omp target in_reduction(+ : r) firstprivate(k)
      {
        long v = r;
        pause_us(50);
        r = v + k;
      }
#pragma omp task in_reduction(+ : r) firstprivate(k)
      r += 100 * k;
    }
  }
  return r;
}

int main(int argc, char** argv) {
  const int reps = argc > 1 ? atoi(argv[1]) : 40;
  int wrong = 0;
  for (int rep = 0; rep < reps; ++rep) {
    const long a = single_maker();
    int threads = 0;
    const long b = every_member(&threads);
    if (a != 5555) fprintf(stderr, "rep %d: one maker: %ld, expected 5555\n", rep, a);
    if (b != 5555L * threads)
      fprintf(stderr, "rep %d: %d makers: %ld, expected %ld\n", rep, threads, b, 5555L * threads);
    wrong += (a != 5555) + (b != 5555L * threads);
  }
  printf("target_in_reduction: %d of %d sums wrong\n", wrong, 2 * reps);
  CHECK(wrong == 0);
  return finish("target_in_reduction");
}
