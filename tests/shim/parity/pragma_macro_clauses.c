// Pragma-line macros that end in a clause, its arguments written at each
// use (`#define TD #pragma oss task depend`, then `TD(inout: x)`):
// Mercurium read preprocessed output, where a use is one pragma line.
// Valid C and C++.
// parity: tasks=3 taskwaits=1
#include <stdio.h>
#include <unistd.h>

#ifdef SEQUENTIAL_REFERENCE  // the stock compiler cannot expand a pragma line
#define TD(...)
#define TIN(...)
#define TY_IN(...)
#else
#define TD #pragma oss task depend
#define TIN #pragma omp task inout
#define TY_IN #pragma oss task inout(y) in
#endif

int main(void) {
  int x = 1, y = 0;
  TD(inout: x)
  {
    usleep(20000);
    x *= 3;
  }
  TIN(x)
  x += 1;
  TY_IN(x)
  y = x * 2;
#pragma oss taskwait
  printf("x = %d y = %d\n", x, y);
  return 0;
}
