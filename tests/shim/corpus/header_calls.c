/* Task functions called from headers (a MiniFE-like port keeps its kernels
   in static inline functions of headers): every call becomes a task,
   wherever it is written, so the order of the updates is the sequential one
   at any number of workers. */
#include <stdio.h>

#include "header_calls_more.h"

static void in_main(int *x) {
  twice(x);
  BUMP(x); /* the macro's body is in the header */
  APPLY(inc, x);
}

int main(void) {
  int a = 1, b = 1, c = 1, d = 1;
  run(&a);
  twice(&b); /* a task from the main file, then the header's calls */
  chain(&b);
  twice(&c);
  via_macros(&c);
  in_main(&d);
  for (int i = 0; i < 3; i++) run(&d);
#pragma oss taskwait
  printf("a = %d b = %d c = %d d = %d\n", a, b, c, d);
  return 0;
}
