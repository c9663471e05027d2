/* Calls to task functions in a header with no pragma of its own
   (header_calls.c): only its calls make it a header joulecc translates. */
#ifndef HEADER_CALLS_MORE_H
#define HEADER_CALLS_MORE_H
#include "header_calls.h"

static inline void chain(int *x) {
  twice(x);
  inc(x);
  twice(x);
}
#endif
