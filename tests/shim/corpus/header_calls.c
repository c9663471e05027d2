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
  int a = 1, b = 1, c = 1, d = 1, e = 1, f = 1, g = 1;
  run(&a);
  twice(&b); /* a task from the main file, then the header's calls */
  chain(&b);
  twice(&c);
  via_macros(&c);
  in_main(&d);
  for (int i = 0; i < 3; i++) run(&d);
  generic(&e);
  with_lambda(&f);
  ACC_GO(&g);
  KERN(add5)(&g);
  generic(&g);
#pragma oss taskwait
  printf("a = %d b = %d c = %d d = %d e = %d f = %d g = %d\n", a, b, c, d, e, f, g);
  return 0;
}
