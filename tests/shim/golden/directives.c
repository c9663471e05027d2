/* Standalone and statement directives other than task. */
#include <stdio.h>

void directives(int n, int *data) {
  int sum = 0;
  for (int i = 0; i < n; i++) {
#pragma oss task inout(data[i])
    data[i] *= 2;
  }
#pragma oss taskwait on(data[0])
#pragma oss taskwait in(data[0;n])
#pragma oss taskwait out(sum) inout(data[1])
#pragma omp taskwait noflush
#pragma oss taskwait
#pragma oss release in(data[0;n])
#pragma omp taskyield
#pragma omp flush
#pragma omp critical
  sum++;
#pragma oss critical(named)
  {
    sum += data[0];
  }
#pragma oss atomic
  sum += 2;
#pragma omp atomic update
  sum += 3;
#pragma omp taskgroup
  {
#pragma omp task shared(sum)
    sum++;
  }
#pragma oss assert("version.dependencies==regions")
#pragma omp parallel for
  for (int i = 0; i < n; i++) data[i]++;
  printf("%d\n", sum);
}
