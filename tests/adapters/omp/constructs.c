/* Parallel regions, barriers, every loop schedule with chunk sizes,
 * critical, atomic, single + copyprivate, master, sections, ordered and
 * reductions, checked against sequential results; every team member must
 * run on a distinct joule worker. */
#include <omp.h>
#include <string.h>

#include "check.h"

#define N 1000

static void team_checks(void) {
  int n = 0, ids[64] = {0}, workers[64], bad = 0;
  memset(workers, -1, sizeof workers);
#pragma omp parallel
  {
#pragma omp single
    n = omp_get_num_threads();
    int id = omp_get_thread_num();
    if (id < 64) ids[id] = 1, workers[id] = joule_worker_id ? joule_worker_id() : -1;
    if (!on_joule() || omp_in_parallel() != (omp_get_num_threads() > 1) || omp_get_level() != 1) {
#pragma omp atomic
      bad++;
    }
  }
  CHECK(bad == 0);
  CHECK(n >= 1 && n == omp_get_max_threads());
  for (int i = 0; i < n && i < 64; ++i) {
    CHECK(ids[i] == 1);
    for (int j = 0; j < i; ++j) CHECK(workers[i] != workers[j]);
  }
  CHECK(!omp_in_parallel() && omp_get_level() == 0 && omp_get_thread_num() == 0);
}

static void loop_checks(void) {
  static int hit[N];
  long sum = 0;
  memset(hit, 0, sizeof hit);
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (int i = 0; i < N; ++i) hit[i]++;
#pragma omp for schedule(static, 7)
    for (int i = 0; i < N; ++i) hit[i]++;
#pragma omp for schedule(dynamic)
    for (int i = 0; i < N; ++i) hit[i]++;
#pragma omp for schedule(dynamic, 13) nowait
    for (int i = N - 1; i >= 0; --i) hit[i]++;
#pragma omp for schedule(guided)
    for (int i = 0; i < N; ++i) hit[i]++;
#pragma omp for schedule(guided, 5)
    for (int i = 0; i < N; i += 1) hit[i]++;
#pragma omp for schedule(runtime)
    for (int i = 0; i < N; ++i) hit[i]++;
#pragma omp for schedule(auto)
    for (int i = 0; i < N; ++i) hit[i]++;
#pragma omp for schedule(monotonic : dynamic, 3)
    for (int i = 0; i < N; ++i) hit[i]++;
#pragma omp for schedule(dynamic, 4) reduction(+ : sum)
    for (long i = 3; i < 3 * N; i += 3) sum += i;
  }
  for (int i = 0; i < N; ++i) CHECK(hit[i] == 9);
  long expect = 0;
  for (long i = 3; i < 3 * N; i += 3) expect += i;
  CHECK(sum == expect);
  /* unsigned long long loops, counting down, collapse(2) */
  unsigned long long usum = 0;
#pragma omp parallel for schedule(dynamic, 2) reduction(+ : usum)
  for (unsigned long long u = 5000000000ull; u > 4999999000ull; u -= 3) usum += u - 4999999000ull;
  unsigned long long uexp = 0;
  for (unsigned long long u = 5000000000ull; u > 4999999000ull; u -= 3) uexp += u - 4999999000ull;
  CHECK(usum == uexp);
  int grid[30][40];
  memset(grid, 0, sizeof grid);
#pragma omp parallel for collapse(2) schedule(guided, 3)
  for (int i = 0; i < 30; ++i)
    for (int j = 0; j < 40; ++j) grid[i][j] += i * 40 + j;
  for (int i = 0; i < 30; ++i)
    for (int j = 0; j < 40; ++j) CHECK(grid[i][j] == i * 40 + j);
}

static void reduction_checks(void) {
  long s = 0, p = 1, mx = -1, mn = 1 << 30, band = ~0L, bor = 0, bxor = 0;
  int land = 1, lor = 0;
  double d = 0.0;
#pragma omp parallel for reduction(+ : s) reduction(* : p) reduction(max : mx) reduction(min : mn) \
    reduction(& : band) reduction(| : bor) reduction(^ : bxor) reduction(&& : land)            \
    reduction(|| : lor) reduction(+ : d) schedule(static, 3)
  for (int i = 1; i <= 20; ++i) {
    s += i;
    p *= (i % 3 == 0) ? 2 : 1;
    mx = i > mx ? i : mx;
    mn = i < mn ? i : mn;
    band &= ~(1L << i);
    bor |= 1L << i;
    bxor ^= i;
    land = land && i > 0;
    lor = lor || i == 17;
    d += 0.5;
  }
  long x = 0;
  for (int i = 1; i <= 20; ++i) x ^= i;
  CHECK(s == 210 && p == 64 && mx == 20 && mn == 1 && bor == 0x1ffffeL && bxor == x);
  CHECK(band == (~0L & ~0x1ffffeL) && land == 1 && lor == 1 && d == 10.0);
}

static void sync_checks(void) {
  int counter = 0, named = 0, singles = 0, masters = 0, value = 0, order[N], pos = 0, sections = 0;
  double cplx = 0;
#pragma omp parallel
  {
    for (int k = 0; k < 100; ++k) {
#pragma omp critical
      counter++;
#pragma omp critical(other)
      named += 2;
#pragma omp atomic
      cplx += 1.0;
    }
#pragma omp barrier
#pragma omp single
    singles++;
#pragma omp master
    masters++;
    int mine = 0;
#pragma omp single copyprivate(mine)
    mine = 42;
    if (mine != 42) {
#pragma omp atomic
      value++;
    }
#pragma omp for ordered schedule(dynamic, 3)
    for (int i = 0; i < N; ++i) {
#pragma omp ordered
      order[pos++] = i;
    }
#pragma omp sections
    {
#pragma omp section
      {
#pragma omp atomic
        sections += 1;
      }
#pragma omp section
      {
#pragma omp atomic
        sections += 10;
      }
#pragma omp section
      {
#pragma omp atomic
        sections += 100;
      }
    }
  }
  int n = omp_get_max_threads();
  CHECK(counter == 100 * n && named == 200 * n && cplx == 100.0 * n);
  CHECK(singles == 1 && masters == 1 && value == 0 && sections == 111 && pos == N);
  for (int i = 0; i < N; ++i) CHECK(order[i] == i);
  int ps = 0;
#pragma omp parallel sections reduction(+ : ps)
  {
#pragma omp section
    ps += 1;
#pragma omp section
    ps += 2;
  }
  CHECK(ps == 3);
}

static void nested_checks(void) {
  int inner = 0, outer = 0;
#pragma omp parallel num_threads(2) reduction(+ : outer)
  {
    outer += 1;
#pragma omp parallel
    if (omp_get_num_threads() == 1 && omp_get_level() == 2 && omp_get_ancestor_thread_num(1) >= 0) {
#pragma omp atomic
      inner++;
    }
  }
  CHECK(inner == outer);
  int one = 0;
#pragma omp parallel num_threads(1)
  one = omp_get_num_threads();
  CHECK(one == 1);
}

int main(void) {
  omp_lock_t l;
  CHECK(sizeof l == 4);
  team_checks();
  loop_checks();
  reduction_checks();
  sync_checks();
  nested_checks();
  return finish("constructs");
}
