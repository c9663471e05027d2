/* Reductions: task reductions (concurrent tasks on private copies) and
 * taskloop reductions (private copies combined at the end). */
#include <stdio.h>

int main(void) {
  long sum = 0, prod_count = 0;
  double best = -1.0;
  for (int i = 1; i <= 100; i++) {
#pragma oss task reduction(+: sum) firstprivate(i)
    sum += i;
#pragma oss task reduction(max: best)
    if (i * 0.5 > best) best = i * 0.5;
  }
#pragma oss taskwait
  long total = 0, minv = 1000000;
  int all = 1;
#pragma oss taskloop grainsize(64) reduction(+: total) reduction(min: minv) reduction(&&: all)
  for (int i = 0; i < 10000; i++) {
    total += i;
    if (i + 7 < minv) minv = i + 7;
    all = all && (i >= 0);
  }
#pragma oss taskwait
  (void)prod_count;
  printf("reduction: sum %ld best %g total %ld min %ld all %d\n", sum, best, total, minv, all);
  if (sum != 5050 || best != 50.0 || total != 49995000L || minv != 7 || !all) return 1;
  printf("OK\n");
  return 0;
}
