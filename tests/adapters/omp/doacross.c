/* Doacross loops (OpenMP 5.2 section 15.9.7, ordered depend(sink/source)):
 * each loop computes a recurrence whose result is right only when every
 * iteration waited for the ones its sink vectors name. Each result is
 * checked against the sequential one and printed, so that compare_runs.sh
 * can hold it against libgomp's. 1-D and 2-D nests, sinks backward and
 * forward in the inner dimension, collapse, static/dynamic/guided chunks,
 * negative steps and unsigned long long loops. */
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#define N 97
#define M 61

static unsigned long a1[N + 4], ref1[N + 4];
static unsigned long g[N][M], gref[N][M];

/* A non-commutative step: order matters. */
static unsigned long mix(unsigned long x, unsigned long y) {
  return (x * 31u + y * 7u + 1u) % 1000003u;
}

static void chain_reference(void) {
  for (int i = 0; i < N + 4; ++i) ref1[i] = (unsigned long)i;
  for (int i = 2; i < N; ++i) ref1[i] = mix(ref1[i - 1], ref1[i - 2]);
}

static void chain_reset(void) {
  for (int i = 0; i < N + 4; ++i) a1[i] = (unsigned long)i;
}

/* 1-D: iteration i needs i-1 (and i-2: the sink i-2 of the first two is
 * outside the iteration space and ignored). One loop per schedule clause,
 * so that each doacross entry point of GCC is called. */
#define PRAGMA(x) _Pragma(#x)
#define CHAIN(name, sched, sinks)        \
  static void name(int chunk) {          \
    (void)chunk;                         \
    chain_reset();                       \
    PRAGMA(omp parallel)                 \
    PRAGMA(omp for ordered(1) sched)     \
    for (int i = 2; i < N; ++i) {        \
      PRAGMA(omp ordered sinks)          \
      a1[i] = mix(a1[i - 1], a1[i - 2]); \
      PRAGMA(omp ordered depend(source)) \
    }                                    \
  }
CHAIN(chain_static, schedule(static, chunk), depend(sink : i - 1) depend(sink : i - 2))
CHAIN(chain_static_block, schedule(static), depend(sink : i - 1))
CHAIN(chain_dynamic, schedule(dynamic, chunk), depend(sink : i - 2) depend(sink : i - 1))

/* Downward, guided: iteration i needs i+1 (the one before it). */
static void chain_down_guided(void) {
  for (int i = 0; i < N + 4; ++i) a1[i] = (unsigned long)i;
#pragma omp parallel
#pragma omp for ordered(1) schedule(guided, 2)
  for (long i = N - 2; i >= 0; i -= 1) {
#pragma omp ordered depend(sink : i + 1)
    a1[i] = mix(a1[i + 1], a1[i + 2]);
#pragma omp ordered depend(source)
  }
}

static unsigned long sum1(void) {
  unsigned long s = 0;
  for (int i = 0; i < N + 4; ++i) s = s * 3u + a1[i];
  return s;
}

/* 2-D wavefront: (i,j) needs (i-1,j) and (i,j-1); the step of j is -1
 * (sink j+1 is the earlier iteration), and a sink (i-1,j-1) is implied. */
static void wave_reference(void) {
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < M; ++j) gref[i][j] = (unsigned long)(i + 2 * j);
  for (int i = 1; i < N; ++i)
    for (int j = M - 2; j >= 0; --j) gref[i][j] = mix(gref[i - 1][j], gref[i][j + 1]);
}

static void wave(int kind, int chunk) {
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < M; ++j) g[i][j] = (unsigned long)(i + 2 * j);
  omp_set_schedule((omp_sched_t)kind, chunk);
#pragma omp parallel
#pragma omp for ordered(2) schedule(runtime)
  for (int i = 1; i < N; ++i)
    for (int j = M - 2; j >= 0; --j) {
#pragma omp ordered depend(sink : i - 1, j) depend(sink : i, j + 1)
      g[i][j] = mix(g[i - 1][j], g[i][j + 1]);
#pragma omp ordered depend(source)
    }
}

/* collapse(2) with a third, ordered dimension. */
static void wave_collapsed(void) {
  static unsigned long c[8][9][10], cref[8][9][10];
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 9; ++j)
      for (int k = 0; k < 10; ++k)
        c[i][j][k] = cref[i][j][k] = (unsigned long)(i * 100 + j * 10 + k);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 9; ++j)
      for (int k = 1; k < 10; ++k) {
        unsigned long up = j > 0 ? cref[i][j - 1][k] : 5u;
        cref[i][j][k] = mix(up, cref[i][j][k - 1]);
      }
#pragma omp parallel
#pragma omp for ordered(3) collapse(2) schedule(dynamic, 2)
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 9; ++j)
      for (int k = 1; k < 10; ++k) {
#pragma omp ordered depend(sink : i, j - 1, k) depend(sink : i, j, k - 1)
        c[i][j][k] = mix(j > 0 ? c[i][j - 1][k] : 5u, c[i][j][k - 1]);
#pragma omp ordered depend(source)
      }
  CHECK(memcmp(c, cref, sizeof c) == 0);
  unsigned long s = 0;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 9; ++j)
      for (int k = 0; k < 10; ++k) s = s * 3u + c[i][j][k];
  printf("collapsed: %lu\n", s);
}

/* unsigned long long iterations above LONG_MAX. (Not downward: GCC 12
 * turns a sink k + step of a downward unsigned loop into a wait for the
 * next iteration, which hangs on libgomp as well.) */
volatile unsigned long long base = 1ULL << 63;
static void chain_ull(void) {
  unsigned long long lo = base, hi = base + 2 * (N - 2);
  chain_reset();
#pragma omp parallel
#pragma omp for ordered(1) schedule(dynamic, 3)
  for (unsigned long long k = lo; k < hi; k += 2) {
#pragma omp ordered depend(sink : k - 2)
    {
      int i = (int)((k - lo) / 2) + 2;
      a1[i] = mix(a1[i - 1], a1[i - 2]);
    }
#pragma omp ordered depend(source)
  }
  CHECK(memcmp(a1, ref1, sizeof a1) == 0);
  printf("ull up: %lu\n", sum1());
}

int main(void) {
  chain_reference();
  int chunks[] = {1, 3, 7};
  for (int c = 0; c < 3; ++c) {
    chain_static(chunks[c]);
    CHECK(memcmp(a1, ref1, sizeof a1) == 0);
    printf("static,%d: %lu\n", chunks[c], sum1());
    chain_dynamic(chunks[c]);
    CHECK(memcmp(a1, ref1, sizeof a1) == 0);
    printf("dynamic,%d: %lu\n", chunks[c], sum1());
  }
  chain_static_block(0);
  CHECK(memcmp(a1, ref1, sizeof a1) == 0);
  printf("static: %lu\n", sum1());
  chain_down_guided();
  unsigned long down[N + 4];
  for (int i = 0; i < N + 4; ++i) down[i] = (unsigned long)i;
  for (int i = N - 2; i >= 0; --i) down[i] = mix(down[i + 1], down[i + 2]);
  CHECK(memcmp(a1, down, sizeof a1) == 0);
  printf("guided down: %lu\n", sum1());
  wave_reference();
  int kinds[] = {omp_sched_static, omp_sched_dynamic, omp_sched_guided};
  for (int k = 0; k < 3; ++k)
    for (int c = 0; c < 2; ++c) {
      wave(kinds[k], c == 0 ? 0 : 4);
      CHECK(memcmp(g, gref, sizeof g) == 0);
      unsigned long s = 0;
      for (int i = 0; i < N; ++i)
        for (int j = 0; j < M; ++j) s = s * 3u + g[i][j];
      printf("wave %d,%d: %lu\n", kinds[k], c == 0 ? 0 : 4, s);
    }
  wave_collapsed();
  chain_ull();
  return finish("doacross");
}
