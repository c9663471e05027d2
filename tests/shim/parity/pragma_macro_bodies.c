// A _Pragma inside a statement macro that also expands to code
// (`#define T(t) {_Pragma("oss taskwait") t = 1;}`): the taskwait is
// rewritten in the macro's body, so each expansion waits where it is.
// Valid C and C++.
// parity: tasks=2 taskwaits=1
#include <stdio.h>
#include <unistd.h>

#define WAIT_SET(t, v)          \
  {                             \
    _Pragma("oss taskwait") t = v; \
  }

int main(void) {
  int x = 1, y = 0;
#pragma oss task inout(x)
  {
    usleep(20000);
    x *= 3;
  }
  WAIT_SET(y, x + 1)
#pragma oss task inout(x)
  {
    usleep(20000);
    x += 10;
  }
  WAIT_SET(y, y + x)
  printf("x = %d y = %d\n", x, y);
  return 0;
}
