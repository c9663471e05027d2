/* Shared harness of the task-code suite (scripts/bench omp --suite): each
 * program times its kernel `reps` times, checks every result (a wrong
 * answer exits 1, so a fast but broken runtime never shows up as a ratio)
 * and prints one line: name, team size, median seconds. */
#ifndef JOULE_TASK_SUITE_H
#define JOULE_TASK_SUITE_H

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static int suite_cmp(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Runs kernel(arg) (which returns 0 when its result checked out) reps
 * times after one warm-up, and prints the median wall time. */
static int suite_main(const char *name, int reps, int (*kernel)(void *), void *arg) {
  double t[32];
  if (reps < 1 || reps > 32) reps = 5;
  int team = 0;
#pragma omp parallel
#pragma omp single
  team = omp_get_num_threads();
  if (kernel(arg) != 0) {
    fprintf(stderr, "%s: wrong result (warm-up)\n", name);
    return 1;
  }
  for (int r = 0; r < reps; ++r) {
    const double t0 = omp_get_wtime();
    const int bad = kernel(arg);
    t[r] = omp_get_wtime() - t0;
    if (bad) {
      fprintf(stderr, "%s: wrong result (repetition %d)\n", name, r);
      return 1;
    }
  }
  qsort(t, (size_t)reps, sizeof t[0], suite_cmp);
  printf("%s %d %.6f\n", name, team, t[reps / 2]);
  return 0;
}

/* argv[1] when given, else the default. */
static int suite_arg(int argc, char **argv, int i, int fallback) {
  return argc > i ? atoi(argv[i]) : fallback;
}

#endif
