/* A 1-D electrostatic particle-in-cell step (OmpSs-2): particles in blocks,
   one task per block pushing them through the field grid and one per block
   depositing their charge with a task reduction over the whole grid. The
   charge is fixed-point (integers) so the folded private copies give the
   sequential sums exactly, in any order. */
/* The pragmas keep OmpSs spacing. */
// clang-format off
#include <stdio.h>
#include <stdlib.h>

#define NG 512          /* grid cells, periodic */
#define NP (1 << 20)    /* particles */
#define BS 16384        /* particles per block */
#define STEPS 80
#define ONE 65536L      /* the charge of one particle, fixed point */

struct particle {
  double x, v;
};

static struct particle parts[NP];
static double field[NG];

/* Linear weighting onto the two nearest cells, rounded to the fixed point
   once per particle so every build deposits the same integers. */
static void deposit(const struct particle *p, long *rho, int n) {
  for (int k = 0; k < n; k++) {
    int c = (int)p[k].x;
    long w = (long)((p[k].x - c) * ONE);
    rho[c] += ONE - w;
    rho[(c + 1) % NG] += w;
  }
}

static void push(struct particle *p, const double *e, int n, double dt) {
  for (int k = 0; k < n; k++) {
    int c = (int)p[k].x;
    double f = p[k].x - c;
    double ef = (1.0 - f) * e[c] + f * e[(c + 1) % NG];
    p[k].v += dt * ef;
    p[k].x += dt * p[k].v;
    /* periodic wrap; a push never moves a particle more than one period */
    if (p[k].x < 0) p[k].x += NG;
    if (p[k].x >= NG) p[k].x -= NG;
  }
}

/* Gauss's law on the periodic grid: the field is the running sum of the
   charge minus its mean (the neutralising background), shifted to zero mean. */
static void solve(const long *rho, double *e) {
  long total = 0;
  for (int c = 0; c < NG; c++) total += rho[c];
  double mean = (double)total / NG, run = 0, avg = 0;
  for (int c = 0; c < NG; c++) {
    run += (rho[c] - mean) / ONE;
    e[c] = run * 1e-3;
    avg += e[c];
  }
  avg /= NG;
  for (int c = 0; c < NG; c++) e[c] -= avg;
}

int main(void) {
  long *rho = (long *)malloc(NG * sizeof *rho);
  long moments = 0;
  /* a two-stream start: two beams with a small sinusoid-like density ripple */
  for (int k = 0; k < NP; k++) {
    double s = (double)k / NP;
    parts[k].x = NG * s + 3.0 * ((k * 37) % 101) / 101.0;
    if (parts[k].x >= NG) parts[k].x -= NG;
    parts[k].v = (k % 2 ? 1.0 : -1.0) * (0.4 + ((k * 13) % 17) / 170.0);
  }
  for (int step = 0; step < STEPS; step++) {
#pragma oss task out(rho[0; NG])
    for (int c = 0; c < NG; c++) rho[c] = 0;
    for (int b = 0; b < NP; b += BS) {
#pragma oss task in(parts[b; BS]) reduction(+ : [NG]rho) firstprivate(b)
      deposit(&parts[b], rho, BS);
    }
#pragma oss task in(rho[0; NG]) out(field[0; NG])
    solve(rho, field);
    for (int b = 0; b < NP; b += BS) {
#pragma oss task in(field[0; NG]) inout(parts[b; BS]) firstprivate(b)
      push(&parts[b], field, BS, 0.25);
    }
  }
  /* The last charge grid, reduced once more: its integer moments. */
#pragma oss task in(rho[0; NG]) inout(moments)
  for (int c = 0; c < NG; c++) moments += rho[c] * (c % 7 + 1);
#pragma oss taskwait
  double xs = 0, vs = 0;
  for (int k = 0; k < NP; k++) {
    xs += parts[k].x;
    vs += parts[k].v * parts[k].v;
  }
  printf("moments %ld rho[17] %ld\n", moments, rho[17]);
  printf("x %.9e v2 %.9e field[100] %.9e\n", xs, vs, field[100]);
  free(rho);
  return 0;
}
