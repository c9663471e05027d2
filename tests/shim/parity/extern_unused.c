// Functions declared at block scope (`extern void f(int *);` inside main),
// called from tasks that joulecc outlines at file scope in C, and a header
// task function this file does not call. Valid C and C++.
// parity: tasks=3 taskwaits=1
#include <stdio.h>

#include "unused_task.h"

int main(void) {
  extern long total;
  extern void add_to(long *dst, long v);
  for (long i = 0; i < 6; ++i) {
#pragma oss task inout(total)
    add_to(&total, i * i);
  }
  long twice = 0;
#pragma oss task in(total) out(twice)
  {
    extern long doubled(long);
    twice = doubled(total);
  }
#pragma oss taskwait
  printf("total = %ld, twice = %ld\n", total, twice);
  return 0;
}

long total;
void add_to(long *dst, long v) { *dst += v; }
long doubled(long v) { return 2 * v; }
