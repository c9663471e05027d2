/* OmpSs-1 (Mercurium with Nanos++) per-thread partial sums: the team's size
   from nanos_omp_get_num_threads() sizes one slot per thread, each task adds
   into the slot of the thread running it (nanos_omp_get_thread_num()), the
   slots are summed after a taskwait. The program calls the Nanos++ API
   without including it, as `mcc --ompss` included nanos_omp.h itself; the
   corpus test builds it with Mercurium's flags on the line (corpus_test.cpp). */
/* The pragmas keep OmpSs spacing. */
// clang-format off
#include <stdio.h>
#include <stdlib.h>

#ifdef _OMPSS
#if !defined(JOULE_CORPUS_FLAGS) || defined(_OMPSS_2)
#error "built without the corpus test's Mercurium flags (--ompss, --Wp,-D...)"
#endif
#define get_num_threads nanos_omp_get_num_threads
#define get_thread_num nanos_omp_get_thread_num
#define set_num_threads nanos_omp_set_num_threads
#define get_max_threads nanos_omp_get_max_threads
#else
static int get_num_threads(void) { return 1; }
static int get_thread_num(void) { return 0; }
static void set_num_threads(int n) { (void)n; }
static int get_max_threads(void) { return 1; }
#endif

#define N 200000
#define BS 2500

int main(void) {
  set_num_threads(get_max_threads()); /* as CG codes' "-th" option did */
  const int threads = get_num_threads();
  long long *partial = (long long *)calloc((size_t)threads, sizeof(long long));
  int *bad = (int *)calloc((size_t)threads, sizeof(int));
  int *data = (int *)malloc(N * sizeof(int));
  if (!partial || !bad || !data) return 1;
  for (int i = 0; i < N; i++) data[i] = (i * 7919) % 1009 - 504;
  for (int b = 0; b < N; b += BS) {
#pragma omp task in(data[b;BS]) firstprivate(b)
    {
      const int t = get_thread_num();
      long long s = 0;
      for (int i = b; i < b + BS; i++) s += (long long)data[i] * data[i];
      if (t < 0 || t >= threads)
        bad[0]++;
      else
        partial[t] += s;
    }
  }
#pragma omp taskwait
  long long total = 0;
  int errors = 0;
  for (int t = 0; t < threads; t++) {
    total += partial[t];
    errors += bad[t];
  }
  printf("sum of squares %lld, thread numbers out of range %d\n", total, errors);
  free(partial);
  free(bad);
  free(data);
  return 0;
}
