/* Multisort: recursive nested tasks with taskwait (OmpSs-2 syntax). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_SORT 64
#define MIN_MERGE 256

static void seqsort(long *d, long n) {
  for (long i = 1; i < n; i++) {
    long v = d[i], j = i - 1;
    while (j >= 0 && d[j] > v) {
      d[j + 1] = d[j];
      j--;
    }
    d[j + 1] = v;
  }
}

static void seqmerge(const long *a, long na, const long *b, long nb, long *out) {
  long i = 0, j = 0, k = 0;
  while (i < na && j < nb) out[k++] = a[i] <= b[j] ? a[i++] : b[j++];
  while (i < na) out[k++] = a[i++];
  while (j < nb) out[k++] = b[j++];
}

static void merge(const long *a, long na, const long *b, long nb, long *out) {
  if (na + nb < MIN_MERGE || na == 0 || nb == 0) {
    seqmerge(a, na, b, nb, out);
    return;
  }
  long ha = na / 2, v = a[ha];
  long lo = 0, hi = nb;  /* first b element >= v */
  while (lo < hi) {
    long mid = (lo + hi) / 2;
    if (b[mid] < v) lo = mid + 1;
    else hi = mid;
  }
#pragma oss task in(a[0;ha], b[0;lo]) out(out[0;ha + lo])
  merge(a, ha, b, lo, out);
#pragma oss task in(a[ha:na-1], b[lo;nb-lo]) out(out[ha + lo;na + nb - ha - lo])
  merge(a + ha, na - ha, b + lo, nb - lo, out + ha + lo);
#pragma oss taskwait
}

static void sort(long *data, long *tmp, long n) {
  if (n < MIN_SORT) {
    seqsort(data, n);
    return;
  }
  long q = n / 4;
  long *A = data, *B = data + q, *C = data + 2 * q, *D = data + 3 * q;
  long *tA = tmp, *tC = tmp + 2 * q;
#pragma oss task inout(A[0;q])
  sort(A, tmp, q);
#pragma oss task inout(B[0;q])
  sort(B, tmp + q, q);
#pragma oss task inout(C[0;q])
  sort(C, tmp + 2 * q, q);
#pragma oss task inout(D[0;n - 3 * q])
  sort(D, tmp + 3 * q, n - 3 * q);
#pragma oss taskwait
#pragma oss task in(A[0;q], B[0;q]) out(tA[0;2 * q])
  merge(A, q, B, q, tA);
#pragma oss task in(C[0;q], D[0;n - 3 * q]) out(tC[0;n - 2 * q])
  merge(C, q, D, n - 3 * q, tC);
#pragma oss taskwait
  merge(tA, 2 * q, tC, n - 2 * q, data);
}

int main(void) {
  long n = 50000;
  long *d = malloc(n * sizeof(long)), *t = malloc(n * sizeof(long));
  unsigned long x = 12345, sum = 0, sum2 = 0;
  for (long i = 0; i < n; i++) {
    x = x * 6364136223846793005UL + 1442695040888963407UL;
    d[i] = (long)(x >> 33) % 100000;
    sum += (unsigned long)d[i];
  }
#pragma oss task inout(d[0;n]) out(t[0;n])
  sort(d, t, n);
#pragma oss taskwait
  for (long i = 0; i < n; i++) {
    sum2 += (unsigned long)d[i];
    if (i && d[i - 1] > d[i]) {
      printf("multisort: not sorted at %ld\n", i);
      return 1;
    }
  }
  free(d);
  free(t);
  if (sum != sum2) return 1;
  printf("OK\n");
  return 0;
}
