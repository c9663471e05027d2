/* A two-level AMR mini-app in the style of C99 patch codes: each level is
   an array of patches, each patch a block of rows whose width is only
   known at run time, reached through variably modified row pointers
   (`double (**crs)[nc]`, a function-scope `typedef double (*frow_t)[nf]`).
   Tasks and taskloops use those types in their bodies and captures, so
   the outlined code must rebuild them from the sizes the creator had when
   it declared them. A step: relax each coarse patch against its
   neighbours' edge rows, prolong it into its two fine patches, relax
   those, restrict them back; then a taskloop of per-patch norms.
   corpus: C only (variably modified parameters are not C++). */
/* The pragmas keep OmpSs spacing. */
// clang-format off
#include <stdio.h>
#include <stdlib.h>

#define NP 6     /* coarse patches */
#define NR 8     /* rows per patch */
#define STEPS 3

static void relax(int nr, int nc, double (*p)[nc], const double *up, const double *down) {
  for (int i = 0; i < nr; i++)
    for (int j = 1; j < nc - 1; j++) {
      double above = i > 0 ? p[i - 1][j] : (up ? up[j] : 0.0);
      double below = i < nr - 1 ? p[i + 1][j] : (down ? down[j] : 0.0);
      p[i][j] = 0.25 * (above + below + p[i][j - 1] + p[i][j + 1]);
    }
}

static double run(int np, int nr, int nc, double (**crs)[nc], double *norms) {
  const int nf = 2 * nc;
  typedef double (*frow_t)[nf];
  frow_t *fine = (frow_t *)malloc(2 * np * sizeof(frow_t));
  for (int f = 0; f < 2 * np; f++) fine[f] = (frow_t)calloc(nr / 2, sizeof(double[nf]));
  for (int s = 0; s < STEPS; s++) {
    for (int p = 0; p < np; p++) {
      const double *up = p > 0 ? crs[p - 1][nr - 1] : NULL;
      const double *down = p < np - 1 ? crs[p + 1][0] : NULL;
#pragma oss task inout(crs[p][0; nr]) in(crs[p > 0 ? p - 1 : p][nr - 1], crs[p < np - 1 ? p + 1 : p][0])
      relax(nr, nc, crs[p], up, down);
    }
    for (int p = 0; p < np; p++) {
#pragma oss task in(crs[p][0; nr]) out(fine[2 * p][0; nr / 2], fine[2 * p + 1][0; nr / 2])
      {
        for (int h = 0; h < 2; h++) {
          frow_t fp = fine[2 * p + h];
          for (int i = 0; i < nr / 2; i++)
            for (int j = 0; j < nf; j++) fp[i][j] = crs[p][h * nr / 2 + i][j / 2] * (1.0 + 0.01 * h);
        }
      }
    }
#pragma oss taskloop grainsize(1) inout(fine[f][0; nr / 2])
    for (int f = 0; f < 2 * np; f++) {
      frow_t fp = fine[f];
      for (int i = 0; i < nr / 2; i++)
        for (int j = 1; j < nf - 1; j++) fp[i][j] = 0.5 * fp[i][j] + 0.25 * (fp[i][j - 1] + fp[i][j + 1]);
    }
    for (int p = 0; p < np; p++) {
#pragma oss task in(fine[2 * p][0; nr / 2], fine[2 * p + 1][0; nr / 2]) inout(crs[p][0; nr])
      {
        double (*cp)[nc] = crs[p];
        for (int i = 0; i < nr; i++)
          for (int j = 0; j < nc; j++) {
            frow_t fp = fine[2 * p + i / (nr / 2)];
            cp[i][j] = 0.5 * (fp[i % (nr / 2)][2 * j] + fp[i % (nr / 2)][2 * j + 1]);
          }
      }
    }
  }
#pragma oss taskloop grainsize(2) in(crs[p][0; nr]) out(norms[p])
  for (int p = 0; p < np; p++) {
    double sum = 0;
    for (int i = 0; i < nr; i++)
      for (int j = 0; j < nc; j++) sum += crs[p][i][j] * crs[p][i][j];
    norms[p] = sum;
  }
#pragma oss taskwait
  double total = 0;
  for (int p = 0; p < np; p++) total += norms[p];
  for (int f = 0; f < 2 * np; f++) free(fine[f]);
  free(fine);
  return total;
}

int main(int argc, char **argv) {
  (void)argv;
  int nc = argc > 5 ? 40 : 24; /* the patch width is a run-time value */
  typedef double (*crow_t)[nc];
  crow_t *crs = (crow_t *)malloc(NP * sizeof(crow_t));
  double norms[NP];
  for (int p = 0; p < NP; p++) {
    crs[p] = (crow_t)malloc(NR * sizeof(double[nc]));
    for (int i = 0; i < NR; i++)
      for (int j = 0; j < nc; j++) crs[p][i][j] = (double)((p * 31 + i * 7 + j * 3) % 17);
  }
  double total = run(NP, NR, nc, crs, norms);
  printf("total %.9g norms %.9g %.9g %.9g\n", total, norms[0], norms[2], norms[NP - 1]);
  for (int p = 0; p < NP; p++) free(crs[p]);
  free(crs);
  return 0;
}
