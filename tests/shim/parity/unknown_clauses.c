// parity: tasks=5 taskwaits=1 warnings=5
/* OmpSs-1 placement clauses written into task pragmas (some codes put
   `target device(smp) copy_deps` in a task pragma through a macro) and a
   clause joulecc does not know: each is a warning, as under Mercurium, and
   the tasks keep their dependencies. */
#include <stdio.h>
#include <unistd.h>

#define SMP_TASK(x) _Pragma("omp task inout(x) target device(smp) copy_deps")

static void scale(int *v, int n, int k) {
  for (int i = 0; i < n; i++) v[i] *= k;
}

int main(void) {
  int x = 1, v[4] = {1, 2, 3, 4};
#pragma omp task inout(x) target device(smp) copy_deps
  {
    usleep(20000);
    x *= 3;
  }
#pragma omp task inout(x) no_copy_deps copy_inout(x) untied_hint(2)
  x += 1;
  SMP_TASK(x)
  x *= 5;
#pragma omp target device(smp) copy_in(v[0;4])
#pragma omp task inout(v[0;4]) in(x)
  scale(v, 4, x);
#pragma omp task inout(v[0;4]) in(x) target device(smp) copy_out(v[0;4]) mystery
  v[0] += x;
#pragma omp taskwait
  printf("x = %d v = %d %d %d %d\n", x, v[0], v[1], v[2], v[3]);
  return 0;
}
