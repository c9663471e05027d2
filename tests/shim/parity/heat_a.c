/* Statement tasks in a C header included by two sources (heat_b.c). */
// parity: tasks=1 taskwaits=1 also=heat_b.c
#include <stdio.h>

#include "include/heat.h"

double heat_b(void);

int main(void) {
  double u[64];
  for (int i = 0; i < 64; ++i) u[i] = i == 0 ? 100.0 : 0.0;
  relax(64, u, 20);
  printf("a: u[1] = %.6f u[10] = %.6f\n", u[1], u[10]);
  printf("b: %.6f\n", heat_b());
  return 0;
}
