/* OmpSs-2 program in C for the installed joulecc and joule_ompss_sources():
 * an inout chain and a task reading its result; prints OK and exits 0 only
 * when both values are right. */
#include <stdio.h>

int main(void) {
  long x = 1, y = 0;
  for (int i = 0; i < 10; ++i) {
#pragma oss task inout(x)
    x *= 2;
  }
#pragma oss task in(x)out(y)
  y = x + 1;
#pragma oss taskwait
  const int ok = x == 1024 && y == 1025;
  printf("ompss chain (C): x=%ld y=%ld: %s\n", x, y, ok ? "OK" : "WRONG");
  return ok ? 0 : 1;
}
