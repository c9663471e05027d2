/* The element/node loops of a LULESH-like hydro step (OmpSs-2 ports of
   LULESH taskify them this way): elements gather node positions through
   an index array, scatter forces back to their nodes through it, and the
   nodes move. The dependencies go through the index arrays, so they are
   not affine in the loop variable: each chunk's list is built from its
   own iterations when it is created. The block form
   `in({x[blocknodes[k / EBS][b]], b = 0; NPB})` (every node of the
   element's block) is an over-approximation, as such ports write it.
   The scatter reads, sleeps a little and writes each node, so chunks
   sharing a node without their dependency would lose updates; the steps
   are not separated by taskwaits, so a gather that did not wait for the
   node update before it would read old positions. Integer arithmetic: the
   answer does not depend on the order of the commutative updates. */
/* The pragmas keep OmpSs spacing. */
// clang-format off
#include <stdio.h>
#include <unistd.h>

#define NN 192          /* nodes */
#define NE 160          /* elements */
#define NPE 4           /* nodes per element */
#define EBS 8           /* elements per block */
#define NPB (EBS * NPE) /* node slots per block */
#define STEPS 4

static long x[NN], f[NN], ev[NE];
static int nodelist[NE][NPE];
static int blocknodes[NE / EBS][NPB];

static void jitter(int k) { usleep((useconds_t)(k * 7 % 5) * 20); }

/* A scrambled mesh: element e touches nodes e, e + 11, e + 22 and e + 33
   of a chain, renumbered by a permutation, so the node sets of chunks
   overlap irregularly. */
static void build_mesh(void) {
  for (int e = 0; e < NE; e++)
    for (int b = 0; b < NPE; b++) {
      int n = ((e + b * 11) % NN) * 67 % NN;
      nodelist[e][b] = n;
      blocknodes[e / EBS][(e % EBS) * NPE + b] = n;
    }
  for (int n = 0; n < NN; n++) x[n] = (n * 37) % 101;
}

static void step(int ne, int nn) {
#pragma oss taskloop grainsize(4) in({x[blocknodes[k / EBS][b]], b = 0; NPB}) out(ev[k])
  for (int k = 0; k < ne; k++) {
    long s = 0;
    for (int b = 0; b < NPE; b++) s += x[nodelist[k][b]] * (b + 1);
    ev[k] = s % 1009;
  }
#pragma oss taskloop grainsize(3) in(ev[k]) commutative({f[nodelist[k][b]], b = 0; NPE})
  for (int k = 0; k < ne; k++)
    for (int b = 0; b < NPE; b++) {
      long v = f[nodelist[k][b]];
      jitter(k + b);
      f[nodelist[k][b]] = v + ev[k] + b;
    }
#pragma oss taskloop grainsize(16) inout(f[i], x[i])
  for (int i = 0; i < nn; i++) {
    long v = x[i] + f[i] / 8;
    jitter(i);
    x[i] = v % 100003;
    f[i] = f[i] % 8;
  }
}

int main(void) {
  build_mesh();
  for (int s = 0; s < STEPS; s++) step(NE, NN);
#pragma oss taskwait
  long sum = 0, weighted = 0;
  for (int n = 0; n < NN; n++) {
    sum += x[n] + f[n];
    weighted += (x[n] % 1000) * (n + 1);
  }
  printf("sum %ld weighted %ld x[5] %ld x[%d] %ld\n", sum, weighted, x[5], NN - 1, x[NN - 1]);
  return 0;
}
