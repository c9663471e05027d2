/* OmpSs-1 synchronisation: taskwait on(...) for one result, taskwait
   noflush, if(0) tasks that run at once, label and priority. */
#include <stdio.h>

static long work(long n) {
  long s = 0;
  for (long i = 0; i < n; i++) s += i % 13;
  return s;
}

int main(void) {
  long a = 0, b = 0, c = 0;
  int serial = 1;
#pragma omp task out(a) label(produce_a) priority(3)
  a = work(100000);
#pragma omp task out(b) label(produce_b)
  b = work(50000);
#pragma omp task in(a, b)out(c)
  c = a - b;
#pragma omp taskwait on(a)
  printf("a = %ld\n", a);
#pragma omp taskwait on(c)
  printf("c = %ld\n", c);
  long d = 0;
#pragma omp task inout(d) if (serial == 0) default(shared)
  d = c * 2;
#pragma omp taskwait noflush
  printf("d = %ld b = %ld\n", d, b);
  return 0;
}
