/* A 2-D stencil over a taskloop whose strides are const locals: joulecc keeps
   them constants in the outlined chunk, so the compiler can simplify the
   indexing as in the sequential build. */
/* The pragmas keep OmpSs spacing. */
// clang-format off
#include <stdio.h>

#define NX 128
#define NY 96

static double u[NX * NY], v[NX * NY];

static void sweep(double *out, const double *in, int steps) {
  const int strideX = 1;
  const int strideY = NX;
  const double w = 0.2;
  for (int s = 0; s < steps; s++) {
#pragma oss taskloop grainsize(32) in(in[0; NX * NY]) out(out[0; NX * NY])
    for (int y = 1; y < NY - 1; y++)
      for (int x = 1; x < NX - 1; x++) {
        int c = y * strideY + x * strideX;
        out[c] =
            w * (in[c] + in[c - strideX] + in[c + strideX] + in[c - strideY] + in[c + strideY]);
      }
#pragma oss taskwait
    double *t = out;
    out = (double *)in;
    in = t;
  }
}

int main(void) {
  for (int i = 0; i < NX * NY; i++) u[i] = (i * 31) % 97;
  sweep(v, u, 20);
  double s = 0;
  for (int i = 0; i < NX * NY; i++) s += u[i] + v[i];
  printf("checksum %.6f\n", s);
  return 0;
}
