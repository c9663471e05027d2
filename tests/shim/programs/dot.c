/* Dot product with array sections, as in the OmpSs beginners' example:
 * partial sums per chunk, then commutative accumulation. */
#include <stdio.h>
#include <stdlib.h>

double dot_product(long N, long CHUNK_SIZE, double A[N], double B[N]) {
  long N_CHUNKS = N / CHUNK_SIZE + (N % CHUNK_SIZE ? 1 : 0);
  double *C = malloc(N_CHUNKS * sizeof(double));
  double result = 0.0;
  long j = 0;
  for (long i = 0; i < N; i += CHUNK_SIZE) {
    long actual_size = (N - i >= CHUNK_SIZE) ? CHUNK_SIZE : N - i;
#pragma omp task label(dot_prod) firstprivate(j, i, actual_size) in(A[i;actual_size], B[i;actual_size]) inout(C[j;1])
    {
      C[j] = 0;
      for (long ii = 0; ii < actual_size; ii++) C[j] += A[i + ii] * B[i + ii];
    }
#pragma omp task label(increment) firstprivate(j) in(C[j;1]) commutative(result)
    result += C[j];
    j++;
  }
#pragma omp taskwait
  free(C);
  return result;
}

int main(void) {
  long n = 100003;
  double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
  double expect = 0;
  for (long i = 0; i < n; i++) {
    a[i] = (double)(i % 7);
    b[i] = 2.0;
    expect += a[i] * b[i];
  }
  double r = dot_product(n, 1000, a, b);
  printf("dot: %.1f expected %.1f\n", r, expect);
  free(a);
  free(b);
  if (r != expect) return 1;
  printf("OK\n");
  return 0;
}
