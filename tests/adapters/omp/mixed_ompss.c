/* OmpSs-2 and OpenMP pragmas in one file, built by joulecc with -fopenmp:
 * the OmpSs tasks and the OpenMP team both run on joule's workers. */
#include <omp.h>

#include "check.h"

int main(void) {
  int x = 0, foreign = 0, n = 0;
#pragma oss task inout(x)
  x += 1;
#pragma oss task inout(x)
  x *= 10;
#pragma oss taskwait
#pragma omp parallel reduction(+ : foreign, n)
  {
    foreign += !on_joule();
    n += 1;
  }
  CHECK(x == 10 && foreign == 0 && n == omp_get_max_threads());
  return finish("mixed_ompss");
}
