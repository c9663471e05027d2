// A burst of empty tasks from one single, then taskwait: the per-task cost
// of a compiler's task entry points (scripts/omp-task-cost runs it under
// callgrind, docs/openmp-llvm-abi.md "Cost per task"). The body is an empty
// asm statement: GCC drops a task whose body is empty.
#include <stdio.h>
#include <stdlib.h>

#include <valgrind/callgrind.h>

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 200000;
  long ran = 0;
#pragma omp parallel
#pragma omp single
  {
    CALLGRIND_ZERO_STATS;
    for (long i = 0; i < n; ++i) {
#pragma omp task shared(ran)
      {
        __asm__ volatile("" ::: "memory");
#pragma omp atomic
        ran++;
      }
    }
#pragma omp taskwait
    CALLGRIND_DUMP_STATS_AT("burst");
  }
  printf("task_burst: %ld tasks ran\n", ran);
  return ran == n ? 0 : 1;
}
