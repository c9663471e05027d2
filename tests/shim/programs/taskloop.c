/* taskloop: grainsize, num_tasks, collapse(2), steps and decreasing loops;
 * every iteration must run exactly once. */
#include <stdio.h>

#define N 1000
static int hits[N];
static int grid[40][25];

int main(void) {
  int n = N;
#pragma oss taskloop grainsize(37)
  for (int i = 0; i < n; i++) hits[i]++;
#pragma oss taskloop num_tasks(7) in(n)
  for (int i = n - 1; i >= 0; i -= 3) hits[i] += 2;
#pragma oss taskloop collapse(2) grainsize(50)
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 25; j++) grid[i][j] = i * 100 + j;
  int k;
#pragma omp taskloop
  for (k = 10; k <= 20; k++) hits[k] += 10;
#pragma oss taskwait
  for (int i = 0; i < N; i++) {
    int expect = 1 + ((n - 1 - i) % 3 == 0 ? 2 : 0) + (i >= 10 && i <= 20 ? 10 : 0);
    if (hits[i] != expect) {
      printf("taskloop: hits[%d] = %d, expected %d\n", i, hits[i], expect);
      return 1;
    }
  }
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 25; j++)
      if (grid[i][j] != i * 100 + j) return 1;
  printf("OK\n");
  return 0;
}
