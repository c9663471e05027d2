/* Conjugate gradient on the 5-point Laplacian of an N x N grid (CSR), in row
   blocks (OmpSs-2): the SpMV of a block names the blocks of the vector its
   rows read as a multidependency, dot products are task reductions and the
   vector updates are axpy tasks; a fixed number of iterations, no taskwait
   inside the loop. */
/* The pragmas keep OmpSs spacing. */
// clang-format off
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N 512            /* grid side */
#define NR (N * N)       /* unknowns */
#define BS (4 * N)       /* rows per block: a block reads its two neighbours */
#define NB (NR / BS)
#define ITERS 200

static int rowptr[NR + 1], col[5 * NR];
static double val[5 * NR];
static double x[NR], r[NR], p[NR], q[NR];
static double part[NB];   /* one slot per block: see dot() */
static double rr, pq, alpha, beta;

static void build(void) {
  int nz = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      int row = i * N + j;
      rowptr[row] = nz;
      if (i > 0) { col[nz] = row - N; val[nz++] = -1; }
      if (j > 0) { col[nz] = row - 1; val[nz++] = -1; }
      col[nz] = row; val[nz++] = 4;
      if (j < N - 1) { col[nz] = row + 1; val[nz++] = -1; }
      if (i < N - 1) { col[nz] = row + N; val[nz++] = -1; }
    }
  rowptr[NR] = nz;
}

static void spmv(const double *v, double *out, int b) {
  for (int row = b * BS; row < (b + 1) * BS; row++) {
    double s = 0;
    for (int k = rowptr[row]; k < rowptr[row + 1]; k++) s += val[k] * v[col[k]];
    out[row] = s;
  }
}

/* Each block adds into its own slot of the reduced array: a slot receives one
   value and zeros, so folding the private copies is exact in any order, and
   the slots are summed in block order, as the sequential build does. */
static void dot(const double *a, const double *c, double *res) {
  int nb = NB;
#pragma oss task out(part[0; nb])
  for (int b = 0; b < NB; b++) part[b] = 0;
  for (int b = 0; b < NB; b++) {
    double *slots = part;
#pragma oss task in(a[b * BS; BS], c[b * BS; BS]) reduction(+ : [nb]slots) firstprivate(b)
    {
      double s = 0;
      for (int k = b * BS; k < (b + 1) * BS; k++) s += a[k] * c[k];
      slots[b] += s;
    }
  }
#pragma oss task in(part[0; nb]) out(*res)
  {
    double s = 0;
    for (int b = 0; b < NB; b++) s += part[b];
    *res = s;
  }
}

int main(void) {
  double rr_new = 0;
  build();
  for (int k = 0; k < NR; k++) {
    x[k] = 0;
    r[k] = p[k] = 1.0 + (k * 7 % 11) * 0.1;   /* b, with x0 = 0 */
  }
  dot(r, r, &rr);
  for (int it = 0; it < ITERS; it++) {
    for (int b = 0; b < NB; b++) {
      int lo = b > 0 ? b - 1 : 0;
      int n = (b < NB - 1 ? b + 1 : b) - lo + 1;
#pragma oss task in({p[j * BS; BS], j = lo; n}) out(q[b * BS; BS]) firstprivate(b)
      spmv(p, q, b);
    }
    dot(p, q, &pq);
#pragma oss task in(rr, pq) out(alpha)
    alpha = rr / pq;
    for (int b = 0; b < NB; b++) {
#pragma oss task in(alpha, p[b * BS; BS], q[b * BS; BS]) inout(x[b * BS; BS], r[b * BS; BS])
      for (int k = b * BS; k < (b + 1) * BS; k++) {
        x[k] += alpha * p[k];
        r[k] -= alpha * q[k];
      }
    }
    dot(r, r, &rr_new);
#pragma oss task in(rr_new) inout(rr) out(beta)
    {
      beta = rr_new / rr;
      rr = rr_new;
    }
    for (int b = 0; b < NB; b++) {
#pragma oss task in(beta, r[b * BS; BS]) inout(p[b * BS; BS])
      for (int k = b * BS; k < (b + 1) * BS; k++) p[k] = r[k] + beta * p[k];
    }
  }
#pragma oss taskwait
  double sx = 0;
  for (int k = 0; k < NR; k++) sx += x[k] * (1 + k % 3);
  printf("residual %.12e\n", sqrt(rr));
  printf("x %.12e x[777] %.12e\n", sx, x[777]);
  return 0;
}
