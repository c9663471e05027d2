/* A call to a task function from a system header (task_calls_sys.h):
   an error at the call (errors_test.cpp, CallInSystemHeader). */
#pragma oss task inout(*x)
void inc(int *x) { (*x)++; }

#include "task_calls_sys.h"

int main(void) {
  int x = 0;
  bump_twice(&x);
#pragma oss taskwait
  return x;
}
