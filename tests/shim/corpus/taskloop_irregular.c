/* Taskloop dependencies that use the loop variable in ways a chunk's first
   and last iterations cannot bound: a histogram bin (i % NBIN), a square
   (i * i), a collapsed nest's (i + j) / 2, a section whose length grows
   with the loop variable and a permutation (perm[i]). Each chunk's list
   is built from its own iterations. The updates read, wait a little and
   write, and the loops are not separated by taskwaits, so a missing
   dependency would lose an update or read a value too early. */
/* The pragmas keep OmpSs spacing. */
// clang-format off
#include <stdio.h>
#include <unistd.h>

#define N 96
#define NBIN 8

static long a[N], hist[NBIN], sq[N * N], tri[N], grow[2 * N], out[N];
static int perm[N];

static void pause_for(int i) { usleep((useconds_t)(i % 3) * 30); }

int main(void) {
  int n = N, m = 12;
  for (int i = 0; i < N; i++) {
    a[i] = (i * 13) % 29;
    perm[i] = (i * 41) % N;
  }
#pragma oss taskloop grainsize(5) in(a[i]) inout(hist[i % NBIN])
  for (int i = 0; i < n; i++) {
    long v = hist[i % NBIN];
    pause_for(i);
    hist[i % NBIN] = v * 3 % 1000003 + a[i];
  }
#pragma oss taskloop grainsize(2) in(hist[i % NBIN]) out(sq[i * i])
  for (int i = 0; i < m; i++) sq[i * i] = hist[i % NBIN] + i;
#pragma oss taskloop collapse(2) grainsize(7) in(sq[i * i]) inout(tri[(i + j) / 2])
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) {
      long v = tri[(i + j) / 2];
      pause_for(i + j);
      tri[(i + j) / 2] = (v * 7 + sq[i * i] + j) % 1000003;
    }
#pragma oss taskloop grainsize(3) in(tri[i % m]) inout(grow[i; i + 1])
  for (int i = 0; i < n; i++)
    for (int k = i; k <= 2 * i; k++) {
      long v = grow[k];
      pause_for(k);
      grow[k] = (v * 5 + tri[i % m]) % 1000003;
    }
#pragma oss taskloop grainsize(4) in(grow[perm[i]], grow[2 * perm[i]]) out(out[i])
  for (int i = 0; i < n; i++) out[i] = grow[perm[i]] + grow[2 * perm[i]];
#pragma oss taskwait
  long s = 0;
  for (int i = 0; i < N; i++) s = (s * 31 + out[i]) % 1000000007;
  printf("hist[3] %ld tri[5] %ld grow[50] %ld checksum %ld\n", hist[3], tri[5], grow[50], s);
  return 0;
}
