/* Gauss-Seidel heat diffusion (OmpSs-2): the grid is a column of row blocks
   and each sweep is a taskloop over the blocks whose dependencies use the
   loop variable, in(blk[i - 1]) in(blk[i + 1]) inout(blk[i]). A block thus
   sees its upper neighbour already swept and its lower one not yet, as in
   the sequential sweep, and consecutive sweeps overlap as a wavefront. */
/* The pragmas keep OmpSs spacing. */
// clang-format off
#include <stdio.h>

#define NB 34          /* row blocks; the first and last are fixed borders */
#define BR 16          /* rows per block */
#define NC 512         /* columns */
#define SWEEPS 200

static double blk[NB][BR][NC];

/* One Gauss-Seidel pass over block b: its first row reads the last row of
   the block above, its last row the first row of the block below. */
static void relax(int b) {
  for (int r = 0; r < BR; r++) {
    const double *up = r > 0 ? blk[b][r - 1] : blk[b - 1][BR - 1];
    const double *down = r < BR - 1 ? blk[b][r + 1] : blk[b + 1][0];
    double *row = blk[b][r];
    for (int c = 1; c < NC - 1; c++)
      row[c] = 0.25 * (up[c] + down[c] + row[c - 1] + row[c + 1]);
  }
}

int main(void) {
  int nb = NB;
  /* hot top border, a warm spot in the middle, cold elsewhere */
  for (int r = 0; r < BR; r++)
    for (int c = 0; c < NC; c++) blk[0][r][c] = 100.0;
  for (int c = NC / 3; c < 2 * NC / 3; c++) blk[NB / 2][BR / 2][c] = 50.0;
  for (int s = 0; s < SWEEPS; s++) {
#pragma oss taskloop grainsize(1) in(blk[i - 1]) in(blk[i + 1]) inout(blk[i])
    for (int i = 1; i < nb - 1; i++) relax(i);
  }
  /* The mean temperature of each block's middle row, read after the sweeps. */
  double mid[NB];
#pragma oss taskloop grainsize(4) in(blk[i]) out(mid[i])
  for (int i = 0; i < nb; i++) {
    double m = 0;
    for (int c = 0; c < NC; c++) m += blk[i][BR / 2][c];
    mid[i] = m / NC;
  }
#pragma oss taskwait
  double total = 0;
  for (int i = 0; i < NB; i++) total += mid[i] * (i + 1);
  printf("weighted %.12e\n", total);
  for (int i = 1; i < NB; i += 8) printf("mid[%d] %.12e\n", i, mid[i]);
  return 0;
}
