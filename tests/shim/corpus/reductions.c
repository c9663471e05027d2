/* Reductions by hand (OmpSs-1): atomic update, capture, read and write;
   named and unnamed critical; an atomic whose right-hand side calls a
   function that runs atomics itself (evaluated outside the atomic step). */
#include <stdio.h>

static long cells;
static double dsum;
static long double wide = 1.0L;
static int ids, maxv = -1, minv = 1 << 30;
static char small;
static long hist[4];

static long add_cell(int depth) {
  long made = 1;
  if (depth > 0) {
#pragma omp atomic
    cells += add_cell(depth - 1);
  }
  return made;
}

int main(void) {
  int seen[64] = {0};
  for (int i = 0; i < 64; i++) {
#pragma omp task firstprivate(i) shared(seen)
    {
      int id;
#pragma omp atomic
      cells += add_cell(i % 4);
#pragma omp atomic update
      dsum = dsum + 0.25 * i;
#pragma omp atomic
      wide *= 1.0L;
#pragma omp atomic
      small ^= (char)(i & 3);
#pragma omp atomic capture
      id = ids++;
      seen[id] = 1;
#pragma omp critical
      {
        if (i > maxv) maxv = i;
      }
#pragma omp critical(lowest)
      if (i < minv) minv = i;
#pragma omp atomic
      hist[i % 4] += i;
    }
  }
#pragma omp taskwait
  int all = 0, last;
  for (int i = 0; i < 64; i++) all += seen[i];
#pragma omp atomic read
  last = ids;
#pragma omp atomic write
  ids = 0;
#pragma omp atomic capture
  {
    last = ids;
    ids += 5;
  }
  printf("cells %ld dsum %.2f wide %.1Lf small %d\n", cells, dsum, wide, small);
  printf("ids %d all %d last %d max %d min %d\n", ids, all, last, maxv, minv);
  printf("hist %ld %ld %ld %ld\n", hist[0], hist[1], hist[2], hist[3]);
  return 0;
}
