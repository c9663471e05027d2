/* A target region: joule has no devices, and libjoule-omp must abort naming
 * the entry point rather than run the region silently somewhere else. */
#include <stdio.h>

int main(void) {
  int x = 1;
#pragma omp target map(tofrom : x)
  x += 1;
  printf("unsupported: ran the target region (x=%d)\n", x);
  return 0;
}
