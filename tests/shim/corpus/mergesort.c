/* Merge sort (OmpSs-2): halves sorted by tasks on array sections
   [lo;len] and [lo:hi], merged after a taskwait. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SMALL 64

static void insertion(long *a, long n) {
  for (long i = 1; i < n; i++) {
    long v = a[i], j = i - 1;
    while (j >= 0 && a[j] > v) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = v;
  }
}

static void merge(const long *a, long na, const long *b, long nb, long *out) {
  long i = 0, j = 0, k = 0;
  while (i < na && j < nb) out[k++] = a[i] <= b[j] ? a[i++] : b[j++];
  while (i < na) out[k++] = a[i++];
  while (j < nb) out[k++] = b[j++];
}

static void sort(long *a, long *tmp, long n) {
  if (n <= SMALL) {
    insertion(a, n);
    return;
  }
  long h = n / 2;
#pragma oss task inout(a[0; h]) inout(tmp[0; h])
  sort(a, tmp, h);
#pragma oss task inout(a [h:n - 1]) inout(tmp [h:n - 1])
  sort(a + h, tmp + h, n - h);
#pragma oss taskwait
  merge(a, h, a + h, n - h, tmp);
  memcpy(a, tmp, (size_t)n * sizeof(long));
}

int main(void) {
  const long n = 20000;
  long *a = (long *)malloc((size_t)n * sizeof(long));
  long *tmp = (long *)malloc((size_t)n * sizeof(long));
  unsigned long s = 12345;
  for (long i = 0; i < n; i++) {
    s = s * 6364136223846793005UL + 1442695040888963407UL;
    a[i] = (long)(s >> 33) % 100000;
  }
  sort(a, tmp, n);
  long bad = 0, sum = 0;
  for (long i = 0; i < n; i++) {
    if (i && a[i - 1] > a[i]) bad++;
    sum += a[i] * (i % 7);
  }
  printf("unsorted pairs %ld, weighted sum %ld, min %ld max %ld\n", bad, sum, a[0], a[n - 1]);
  free(a);
  free(tmp);
  return 0;
}
