/* The kmp_* extension routines of the LLVM and Intel runtimes (their
 * omp.h): what a program can see of them must be the same on joule as on
 * libomp (kmpc.cmake compares the output; OMP_STACKSIZE is set there). */
#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

int main(void) {
  printf("stacksize %zu (%d)\n", kmp_get_stacksize_s(), kmp_get_stacksize());
  kmp_set_stacksize_s(kmp_get_stacksize_s()); /* no change */

  kmp_set_blocktime(0);
  CHECK(kmp_get_blocktime() == 0);
  int per_thread_ok = 1;
#pragma omp parallel reduction(&& : per_thread_ok)
  {
    kmp_set_blocktime(5 + omp_get_thread_num());
#pragma omp barrier
    per_thread_ok = kmp_get_blocktime() == 5 + omp_get_thread_num();
  }
  CHECK(per_thread_ok);

  kmp_set_library_turnaround();
  printf("library %d\n", kmp_get_library());
  kmp_set_library_throughput();
  printf("library %d\n", kmp_get_library());
  kmp_set_warnings_off();
  kmp_set_warnings_on();

  char* p = kmp_malloc(100);
  CHECK(p != NULL);
  memset(p, 1, 100);
  p = kmp_realloc(p, 1000);
  CHECK(p && p[99] == 1);
  kmp_free(p);
  int* z = kmp_calloc(64, sizeof(int));
  CHECK(z && z[0] == 0 && z[63] == 0);
  kmp_free(z);
  void* a = kmp_aligned_malloc(256, 128);
  CHECK(a && ((uintptr_t)a & 127) == 0);
  kmp_free(a);
  int counts = 0;
#pragma omp parallel reduction(+ : counts)
  {
    void* q = kmp_malloc(32);
    counts += q != NULL;
    kmp_free(q);
  }
  CHECK(counts == omp_get_max_threads());
  return finish("kmp_routines");
}
