/* OmpSs-2 taskloop with a reduction and a grain size, nested in a task
   with weak dependencies; and a task reduction over a scalar. */
#include <stdio.h>

#define N 100000

static int v[N];

int main(void) {
  long sum = 0, evens = 0;
  for (int i = 0; i < N; i++) v[i] = i % 101;
#pragma oss task weakin(v[0; N]) inout(sum)
  {
#pragma oss taskloop grainsize(5000) reduction(+ : sum) in(v[0; N])
    for (int i = 0; i < N; i++) sum += v[i];
  }
  for (int b = 0; b < N; b += 10000) {
#pragma oss task reduction(+ : evens) in(v[b; 10000])
    for (int i = b; i < b + 10000; i++) evens += (v[i] % 2 == 0);
  }
#pragma oss taskwait
  printf("sum %ld evens %ld\n", sum, evens);
  return 0;
}
