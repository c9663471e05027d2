/* EPCC-style OpenMP overheads (the method of the EPCC syncbench/taskbench:
 * time a construct that wraps a short delay, subtract the time of the same
 * delays run without it, divide by the constructs run). Written for joule;
 * compiled once with `gcc -fopenmp` and linked with libgomp, so the same
 * binary runs on libgomp, on libjoule-omp (LD_PRELOAD) and on LLVM libomp
 * (LD_PRELOAD): scripts/bench omp runs all three and prints the table.
 *
 *   epcc [inner_reps] [outer_reps] [construct]
 *
 * (construct: run only that one, e.g. `task`, for profiling.)
 * Prints one line per construct: name, team size, microseconds per
 * construct (median over the outer repetitions). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DELAY_ITERS 40 /* about 0.05-0.1 us: keeps the body off the critical path */

static int g_inner = 2000;
static int g_outer = 9;

/* A delay the compiler cannot remove (each iteration stores to memory). */
static void delay(void) {
  volatile double a = 0.0;
  for (int i = 0; i < DELAY_ITERS; ++i) a += i;
}

static void run_reference(void) {
  for (int i = 0; i < g_inner; ++i) delay();
}

static void run_parallel(void) {
  for (int i = 0; i < g_inner; ++i) {
#pragma omp parallel
    delay();
  }
}

static void run_for_static(void) {
#pragma omp parallel
  {
    const int nth = omp_get_num_threads();
    for (int i = 0; i < g_inner; ++i) {
#pragma omp for schedule(static)
      for (int j = 0; j < nth; ++j) delay();
    }
  }
}

static void run_for_dynamic(void) {
#pragma omp parallel
  {
    const int nth = omp_get_num_threads();
    for (int i = 0; i < g_inner; ++i) {
#pragma omp for schedule(dynamic, 1)
      for (int j = 0; j < nth; ++j) delay();
    }
  }
}

static void run_barrier(void) {
#pragma omp parallel
  for (int i = 0; i < g_inner; ++i) {
    delay();
#pragma omp barrier
  }
}

static int g_sum;

static void run_reduction(void) {
  for (int i = 0; i < g_inner; ++i) {
    int sum = 0;
#pragma omp parallel reduction(+ : sum)
    {
      delay();
      sum += 1;
    }
    g_sum += sum;
  }
}

static void run_single(void) {
#pragma omp parallel
  for (int i = 0; i < g_inner; ++i) {
#pragma omp single
    delay();
  }
}

/* Every member enters inner / team critical sections: inner in all, as in
 * the reference, since they run one at a time. */
static void run_critical(void) {
#pragma omp parallel
  {
    const int n = g_inner / omp_get_num_threads();
    for (int i = 0; i < n; ++i) {
#pragma omp critical
      delay();
    }
  }
}

/* Every member creates inner tasks (EPCC's parallel task generation): the
 * team runs team x inner delays, ideally in the reference's time, so the
 * difference per inner is the cost of creating and running a task. */
static void run_task(void) {
#pragma omp parallel
  for (int i = 0; i < g_inner; ++i) {
#pragma omp task
    delay();
  }
}

struct Bench {
  const char *name;
  void (*fn)(void);
};

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median wall time of g_outer runs of fn, in seconds. */
static double median_time(void (*fn)(void)) {
  double t[64];
  const int n = g_outer < 64 ? g_outer : 64;
  fn(); /* warm-up: starts the threads, faults the pages in */
  for (int r = 0; r < n; ++r) {
    const double t0 = omp_get_wtime();
    fn();
    t[r] = omp_get_wtime() - t0;
  }
  qsort(t, n, sizeof t[0], cmp_double);
  return t[n / 2];
}

int main(int argc, char **argv) {
  if (argc > 1) g_inner = atoi(argv[1]);
  if (argc > 2) g_outer = atoi(argv[2]);
  if (g_inner < 1 || g_outer < 1) {
    fprintf(stderr, "usage: epcc [inner_reps >= 1] [outer_reps >= 1] [construct]\n");
    return 2;
  }
  static const struct Bench benches[] = {
      {"parallel", run_parallel},       {"for_static", run_for_static},
      {"for_dynamic", run_for_dynamic}, {"barrier", run_barrier},
      {"reduction", run_reduction},     {"single", run_single},
      {"critical", run_critical},       {"task", run_task},
  };
  const char *only = argc > 3 ? argv[3] : NULL;
  int team = 0;
#pragma omp parallel
#pragma omp single
  team = omp_get_num_threads();
  const double ref = median_time(run_reference);
  printf("# team %d, inner %d, outer %d, reference delay %.3f us\n", team, g_inner, g_outer,
         ref / g_inner * 1e6);
  for (size_t b = 0; b < sizeof benches / sizeof benches[0]; ++b) {
    if (only && strcmp(only, benches[b].name) != 0) continue;
    const double t = median_time(benches[b].fn);
    printf("%-12s %d %.4f\n", benches[b].name, team, (t - ref) / g_inner * 1e6);
  }
  return only || g_sum > 0 ? 0 : 1; /* the reduction's result, when it ran */
}
