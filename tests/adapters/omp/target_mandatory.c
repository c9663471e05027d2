/* OMP_TARGET_OFFLOAD=mandatory on joule, which has no device: a target
 * region with if(0) asks for the host and runs; the next target construct
 * (or, with the argument "routine", a device memory routine naming a
 * device other than the host) stops the program with a message naming it
 * and exit status 1, never running it elsewhere. */
#include <omp.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  int x = 1, host = 0;
#pragma omp target if (host) map(tofrom : x)
  x += 1;
  printf("target_mandatory: ran the if(0) region on the host (x=%d)\n", x);
  fflush(stdout);
  if (argc > 1 && strcmp(argv[1], "routine") == 0) {
    void* p = omp_target_alloc(8, 3);
    printf("target_mandatory: omp_target_alloc returned %p\n", p);
  }
#pragma omp target map(tofrom : x)
  x += 1;
  printf("target_mandatory: ran the target region (x=%d)\n", x);
  return 0;
}
