/* Task reductions as clang emits them (the LLVM runtime ABI's
 * __kmpc_taskred_modifier_init, __kmpc_taskred_init and
 * __kmpc_task_reduction_get_th_data): reduction(task, +) on parallel (each
 * member's tasks name its own private variable) and on a worksharing loop,
 * and a task_reduction taskgroup whose in_reduction tasks have priorities,
 * are untied and yield. Run by kmpc.cmake against libomp. */
#include <omp.h>
#include <stdio.h>

int main(void) {
  long x = 0, y = 0, z = 0;
  int team = 0, bad = 0;
  for (int round = 0; round < 20; ++round) {
#pragma omp parallel reduction(task, + : x)
    {
#pragma omp single
      team = omp_get_num_threads();
      for (int i = 0; i < 50; ++i) {
#pragma omp task in_reduction(+ : x)
        x += i;
      }
    }
#pragma omp parallel
#pragma omp for reduction(task, + : y)
    for (int i = 0; i < 100; ++i) {
#pragma omp task in_reduction(+ : y)
      y += i;
    }
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskgroup task_reduction(+ : z)
      {
        for (int i = 0; i < 100; ++i) {
#pragma omp task in_reduction(+ : z) priority(i % 3) untied
          {
            z += i;
#pragma omp taskyield
          }
        }
      }
    }
    bad += x != 1225L * team * (round + 1) || y != 4950L * (round + 1) || z != 4950L * (round + 1);
  }
  printf("parallel %ld (team %d), for %ld, taskgroup %ld\n", x, team, y, z);
  if (bad == 0) printf("kmpc_reductions: OK\n");
  return bad != 0;
}
