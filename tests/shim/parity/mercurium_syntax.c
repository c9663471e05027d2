// Clause spellings Mercurium accepted: a multi-word label, `task loop`,
// `taskwait noflush(list)`, `affinity(...)`, and device(fpga) with
// num_instances (run on the host, one warning for the file). Valid C and C++.
// parity: tasks=5 taskwaits=3 warnings=1
#include <stdio.h>

enum { N = 64, BS = 16 };
static double grid[N], sq[N];

#pragma omp target device(fpga) num_instances(4) copy_deps
#pragma omp task inout([n]v)
static void scale(int n, double *v) {
  for (int i = 0; i < n; ++i) v[i] *= 0.5;
}

int main(void) {
  for (int i = 0; i < N; ++i) grid[i] = i % 7;
  for (int it = 0; it < 3; ++it) {
    for (int b = 0; b < N; b += BS) {
#pragma oss task label(gauss seidel) inout(grid[b;BS]) affinity(grid[b;BS])
      for (int i = b + 1; i < b + BS; ++i) grid[i] = 0.5 * (grid[i] + grid[i - 1]);
    }
#pragma omp taskwait noflush(grid)
  }
#pragma oss task loop grainsize(8)
  for (int i = 0; i < N; ++i) sq[i] = grid[i] * grid[i];
#pragma oss taskwait
  double acc = 0;
#pragma oss task device(fpga) num_instances(2) inout(acc) in(sq)
  for (int i = 0; i < N; ++i) acc += sq[i];
  scale(N, grid);
#pragma omp task in(grid) inout(acc) affinity(grid)
  for (int i = 0; i < N; ++i) acc += grid[i];
#pragma omp taskwait
  printf("acc = %.6f\n", acc);
  return 0;
}
