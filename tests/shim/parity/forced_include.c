/* Uses scale() without including its header: the build gives
 * `-include include/scale.h` (tests/shim/parity_test.cpp, ForcedInclude). */
#include <stdio.h>

int main(void) {
  double v[20];
  for (int i = 0; i < 20; ++i) v[i] = i;
  scale(20, v, 3.0);
  double s = 0;
  for (int i = 0; i < 20; ++i) s += v[i];
  printf("sum = %.1f\n", s);
  return s == 570.0 ? 0 : 1;
}
