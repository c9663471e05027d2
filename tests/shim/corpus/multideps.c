/* OmpSs-2 multidependencies: a task that depends on a list of blocks
   ({ref, it = lo;size}, {ref, it = lo:hi}, with a step), ordered against
   the tasks that produce and consume each block. */
/* The pragmas keep OmpSs spacing. */
// clang-format off
#include <stdio.h>

#define NB 16
#define BS 32

static double blk[NB][BS];
static double sums[NB], evens, odds, all;

static void fill(int b) {
  for (int k = 0; k < BS; k++) blk[b][k] = b * 0.5 + k;
}

int main(void) {
  int nb = NB;
  for (int b = 0; b < NB; b++) {
#pragma oss task out(blk[b]) firstprivate(b)
    fill(b);
  }
  /* Every block: waits for all the fills. */
#pragma oss task in({blk[b], b = 0; nb}) out(sums[0; NB])
  for (int b = 0; b < NB; b++) {
    double s = 0;
    for (int k = 0; k < BS; k++) s += blk[b][k];
    sums[b] = s;
  }
  /* The even blocks, by an inclusive range with a step. */
#pragma oss task in({sums[j], j = 0 : nb - 1 : 2}) inout(evens)
  for (int j = 0; j < NB; j += 2) evens += sums[j];
    /* Counting down: the odd sums, from the last. */
#pragma oss task in({sums[j], j = nb - 1 : 1 : -2}) inout(odds)
  for (int j = NB - 1; j >= 1; j -= 2) odds = odds * 0.5 + sums[j];
  /* Then rewrite the odd blocks: after the sum above read them. */
  for (int b = 1; b < NB; b += 2) {
#pragma oss task inout(blk[b]) firstprivate(b)
    for (int k = 0; k < BS; k++) blk[b][k] *= 2;
  }
#pragma oss task in({blk[b][k], b = 0; nb, k = 0; BS}) inout(all)
  for (int b = 0; b < NB; b++)
    for (int k = 0; k < BS; k++) all += blk[b][k];
#pragma oss taskwait
  printf("evens %.2f odds %.4f all %.2f sums[3] %.2f\n", evens, odds, all, sums[3]);
  return 0;
}
