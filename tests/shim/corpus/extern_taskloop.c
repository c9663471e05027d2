/* A smoothing kernel in the style of older C codes that declare the
   globals they use inside the function (`extern float *field;`) rather
   than in a header: taskloops and a task over data and helpers declared
   only at block scope, defined further down the same file. The outlined
   chunks must reach the same objects as the function (never copies),
   and the taskloop reducing a global must give each chunk its own copy. */
/* The pragmas keep OmpSs spacing. */
// clang-format off
#include <stdio.h>
#include <unistd.h>

#define N 2048
#define BS 128

static long samples; /* a file-scope global reduced by a taskloop */

static void smooth(int n, int sweeps) {
  extern float *field, *scratch;
  extern double energy;
  extern float weight(int i);
  extern const int stencil_radius;
  for (int s = 0; s < sweeps; s++) {
#pragma oss taskloop grainsize(BS) in(field[0; n]) out(scratch[i])
    for (int i = 0; i < n; i++) {
      float acc = 0.0f;
      for (int r = -stencil_radius; r <= stencil_radius; r++) {
        int k = i + r < 0 ? 0 : (i + r >= n ? n - 1 : i + r);
        acc += field[k];
      }
      scratch[i] = acc * weight(i) / (float)(2 * stencil_radius + 1);
    }
#pragma oss taskloop grainsize(BS) in(scratch[i]) out(field[i])
    for (int i = 0; i < n; i++) field[i] = scratch[i];
  }
#pragma oss taskloop grainsize(BS) in(field[0; n]) reduction(+ : energy, samples)
  for (int i = 0; i < n; i++) {
    double e = energy;
    if (i % BS == 0) usleep(200); /* chunks sharing the global would lose updates */
    energy = e + (double)field[i] * field[i];
    samples++;
  }
#pragma oss task in(field[0; n]) inout(energy)
  {
    extern long touched;
    touched += n;
    energy = energy / n;
  }
#pragma oss taskwait
}

static float field_store[N], scratch_store[N];
float *field = field_store, *scratch = scratch_store;
double energy;
long touched;
const int stencil_radius = 2;
float weight(int i) { return 1.0f - 0.001f * (float)(i % 7); }

int main(void) {
  for (int i = 0; i < N; i++) field_store[i] = (float)((i * 37) % 101) / 10.0f;
  smooth(N, 6);
  printf("energy %.6f touched %ld samples %ld field[17] %.6f field[%d] %.6f\n", energy, touched,
         samples, field_store[17], N - 1, field_store[N - 1]);
  return 0;
}
