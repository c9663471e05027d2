/* Concurrent and commutative (OmpSs-1/2): concurrent tasks update a shared
   histogram with atomics; commutative tasks append to a log in any order;
   a final task reads both. */
#include <stdio.h>

#define N 10000
#define BINS 16

static int data[N];
static long hist[BINS];
static long log_sum, log_count;

int main(void) {
  for (int i = 0; i < N; i++) data[i] = (i * 7919) % 1000;
  for (int b = 0; b < N; b += 1000) {
#pragma omp task in(data[b; 1000])concurrent(hist) label(binning)
    for (int i = b; i < b + 1000; i++) {
#pragma omp atomic
      hist[data[i] % BINS]++;
    }
#pragma omp task in(data[b; 1000])commutative(log_sum, log_count) priority(1)
    {
      for (int i = b; i < b + 1000; i++) log_sum += data[i];
      log_count++;
    }
  }
#pragma omp task in(hist, log_sum, log_count)
  {
    long total = 0;
    for (int i = 0; i < BINS; i++) total += hist[i];
    printf("binned %ld, logged %ld in %ld parts\n", total, log_sum, log_count);
  }
#pragma omp taskwait
  for (int i = 0; i < BINS; i++) printf("%ld%c", hist[i], i + 1 < BINS ? ' ' : '\n');
  return 0;
}
