/* Statement tasks in headers reached through computed includes
 * (`#include MACRO`, also from a header): the preprocessor resolves them,
 * joulecc translates the header it found. */
// parity: tasks=2 taskwaits=2
#include <stdio.h>

#define STR(x) #x
#define HEADER_OF(name) STR(include/name.h)
#include HEADER_OF(heat)
#include "include/computed.h"

int main(void) {
  double u[64];
  for (int i = 0; i < 64; ++i) u[i] = i == 0 ? 100.0 : 0.0;
  relax(64, u, 20);
  scale(64, u, 0.5);
  printf("u[1] = %.6f u[10] = %.6f u[40] = %.6f\n", u[1], u[10], u[40]);
  return 0;
}
