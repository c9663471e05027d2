/* Array sections (OmpSs-2): a pipeline of stages over blocks, written with
   [lo;len] and [lo:hi] sections and a taskwait on one block. */
#include <stdio.h>

#define N 4096
#define BS 256

static double in[N], mid[N], out[N];

int main(void) {
  for (int i = 0; i < N; i++) in[i] = (i % 17) * 0.5;
  for (int b = 0; b < N; b += BS) {
#pragma oss task in(in[b; BS])out(mid[b; BS])
    for (int i = b; i < b + BS; i++) mid[i] = in[i] * 2 + 1;
#pragma oss task in(mid [b:b + BS - 1]) out(out [b:b + BS - 1])
    for (int i = b; i < b + BS; i++) out[i] = mid[i] - in[i];
  }
#pragma oss taskwait on(out[0; BS])
  double first = 0;
  for (int i = 0; i < BS; i++) first += out[i];
  /* Neighbours: each block reads the edges of the next one. */
  for (int b = 0; b + BS < N; b += BS) {
#pragma oss task inout(out[b; BS]) in(mid[b + BS; 1])
    out[b + BS - 1] += mid[b + BS];
  }
#pragma oss taskwait
  double sum = 0;
  for (int i = 0; i < N; i++) sum += out[i];
  printf("first block %.2f total %.2f\n", first, sum);
  return 0;
}
