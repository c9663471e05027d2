/* Task functions declared in a header and called from the header's own
   static inline functions, from a macro body and through a macro argument
   (header_calls.c). Each caller's order matters: a call left as a plain
   call would run before the task it follows, and the result would change
   with the number of workers. */
#ifndef HEADER_CALLS_H
#define HEADER_CALLS_H
#include <unistd.h>

#pragma oss task inout(*x)
static inline void inc(int *x) { (*x)++; }

#pragma oss task inout(*x)
static inline void twice(int *x) {
  usleep(20000);
  *x *= 2;
}

/* A task statement, then a call, in one inline function. */
static inline void run(int *x) {
#pragma oss task inout(*x)
  {
    usleep(40000);
    *x *= 2;
  }
  inc(x);
}

#define BUMP(p) inc(p)
#define APPLY(f, p) f(p)

static inline void via_macros(int *x) {
  twice(x);
  BUMP(x);
  APPLY(twice, x);
  inc(x);
}
#endif
