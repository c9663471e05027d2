/* Commutative accumulation: many updaters of one value in any order, each
 * alone; readers after them see every update. Also concurrent + taskwait on. */
#include <stdio.h>

struct acc {
  long total;
  int count;
};

int main(void) {
  struct acc acc = {0, 0};
  long histogram[4] = {0, 0, 0, 0};
  long snapshot = -1;
  for (int i = 1; i <= 200; i++) {
#pragma omp task commutative(acc) firstprivate(i)
    {
      long t = acc.total;
      for (volatile int spin = 0; spin < 100; spin++) {
      }
      acc.total = t + i;
      acc.count++;
    }
  }
#pragma omp task in(acc) out(snapshot)
  snapshot = acc.total;
  for (int i = 0; i < 400; i++) {
#pragma oss task concurrent(histogram)
    __atomic_fetch_add(&histogram[i % 4], 1, __ATOMIC_RELAXED);
  }
#pragma oss taskwait on(histogram)
  long h = histogram[0] + histogram[1] + histogram[2] + histogram[3];
#pragma omp taskwait
  printf("commutative: total %ld count %d snapshot %ld histogram %ld\n", acc.total, acc.count, snapshot, h);
  if (acc.total != 20100 || acc.count != 200 || snapshot != 20100 || h != 400) return 1;
  printf("OK\n");
  return 0;
}
