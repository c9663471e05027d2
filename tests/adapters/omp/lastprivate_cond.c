/* lastprivate(conditional:) (OpenMP 5.2 section 5.4.5) on unsigned long
 * long loops, ordered ones too, and on sections: the value after the
 * construct is the one the sequentially last assignment stored, which GCC
 * finds through team-shared scratch the runtime hands out (the `mem`
 * argument of GOMP_loop_ull_start, GOMP_loop_ull_ordered_start and
 * GOMP_sections2_start). Prints the values for compare_runs.sh. (Upward
 * loops only: GCC 12 gets a downward unsigned ordered one wrong on libgomp
 * too.) The ordered region folds in iteration order. */
#include <stdio.h>

#include "check.h"

volatile unsigned long long base = 1ULL << 63;

static unsigned long long mark(unsigned long long k) { return (k * 2654435761u) % 1000u; }

static void ull_loops(void) {
  const unsigned long long lo = base, hi = base + 1000;
  unsigned long long last = 0, ref = 0, ord = 0, ordref = 0;
  long sum = 0;
  for (unsigned long long k = lo; k < hi; k += 3)
    if (mark(k) < 300) ref = k;
  for (unsigned long long k = lo + 5; k < hi; k += 7)
    if (mark(k) < 500) ordref = k;
#pragma omp parallel
  {
#pragma omp for lastprivate(conditional : last) schedule(dynamic, 5)
    for (unsigned long long k = lo; k < hi; k += 3)
      if (mark(k) < 300) last = k;
#pragma omp for ordered lastprivate(conditional : ord) schedule(static, 4)
    for (unsigned long long k = lo + 5; k < hi; k += 7) {
      if (mark(k) < 500) ord = k;
#pragma omp ordered
      sum = sum * 3 + (long)(k - lo);
    }
  }
  CHECK(last == ref);
  CHECK(ord == ordref);
  printf("ull loop: %llu, ordered: %llu, sum %ld\n", last - lo, ord - lo, sum);
}

static void sections(void) {
  int v = -1, w = -1; /* both assigned in every round */
  for (int round = 0; round < 50; ++round) {
#pragma omp parallel
#pragma omp sections lastprivate(conditional : v, w)
    {
#pragma omp section
      {
        v = 1;
        w = 10;
      }
#pragma omp section
      if (round % 2) v = 2;
#pragma omp section
      {
        if (round % 3 == 0) w = 30;
      }
#pragma omp section
      if (round % 5 == 0) v = 4;
    }
    CHECK(v == (round % 5 == 0 ? 4 : round % 2 ? 2 : 1));
    CHECK(w == (round % 3 == 0 ? 30 : 10));
  }
  printf("sections: v %d, w %d\n", v, w);
}

int main(void) {
  ull_loops();
  sections();
  return finish("lastprivate_cond");
}
