/* OpenMP task reductions: taskloop reduction, taskgroup task_reduction with
 * in_reduction tasks (nested groups, an outer group's variable, array
 * sections, every operator on int and double), parallel, worksharing and
 * scope reduction(task, ...), taskloop in_reduction, an orphaned taskgroup.
 * Each result is checked against the sequential value and printed (the
 * printout must match libgomp's: compare_runs.sh). The last check needs
 * in_reduction task bodies to run at the same time with 2 or more threads. */
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "check.h"

enum { N = 200, A = 16 };

static void taskloops(void) {
  long x = 0;
  double prod = 1.0;
  int lo = 1 << 30, hi = -1;
#pragma omp parallel
#pragma omp single
  {
#pragma omp taskloop reduction(+ : x) grainsize(7)
    for (int i = 0; i < N; ++i) x += i;
#pragma omp taskloop reduction(* : prod) reduction(min : lo) reduction(max : hi) num_tasks(9)
    for (int i = 0; i < 40; ++i) {
      prod *= (i % 4 == 0) ? 2.0 : 1.0;
      lo = i + 3 < lo ? i + 3 : lo;
      hi = i * 2 > hi ? i * 2 : hi;
    }
  }
  CHECK(x == (long)N * (N - 1) / 2 && prod == 1024.0 && lo == 3 && hi == 78);
  printf("taskloop: %ld %g %d %d\n", x, prod, lo, hi);
}

static void operators(void) {
  int sum = 0, prod = 1, mn = 1 << 30, mx = -(1 << 30), band = ~0, bor = 0, bxor = 0;
  int land = 1, lor = 0;
  double dsum = 0, dprod = 1, dmn = 1e300, dmx = -1e300;
#pragma omp parallel
#pragma omp single
#pragma omp taskgroup task_reduction(+ : sum, dsum) task_reduction(* : prod, dprod) \
    task_reduction(min : mn, dmn) task_reduction(max : mx, dmx) task_reduction(& : band) \
    task_reduction(| : bor) task_reduction(^ : bxor) task_reduction(&& : land) \
    task_reduction(|| : lor)
  for (int i = 1; i <= 20; ++i) {
#pragma omp task in_reduction(+ : sum, dsum) in_reduction(* : prod, dprod) \
    in_reduction(min : mn, dmn) in_reduction(max : mx, dmx) in_reduction(& : band) \
    in_reduction(| : bor) in_reduction(^ : bxor) in_reduction(&& : land) in_reduction(|| : lor)
    {
      sum += i;
      dsum += i * 0.5;
      prod *= (i % 5 == 0) ? 3 : 1;
      dprod *= (i % 10 == 0) ? 0.5 : 1.0;
      mn = i * 3 < mn ? i * 3 : mn;
      dmn = i - 0.25 < dmn ? i - 0.25 : dmn;
      mx = i * 3 > mx ? i * 3 : mx;
      dmx = i + 0.25 > dmx ? i + 0.25 : dmx;
      band &= ~(1 << i);
      bor |= 1 << i;
      bxor ^= i;
      land = land && i > 0;
      lor = lor || i == 17;
    }
  }
  CHECK(sum == 210 && dsum == 105.0 && prod == 81 && dprod == 0.25);
  CHECK(mn == 3 && dmn == 0.75 && mx == 60 && dmx == 20.25);
  CHECK(band == (int)(~0x1ffffe) && bor == 0x1ffffe && bxor == 20 && land == 1 && lor == 1);
  printf("operators: %d %g %d %g %d %g %d %g %x %x %d %d %d\n", sum, dsum, prod, dprod, mn, dmn, mx,
         dmx, band, bor, bxor, land, lor);
}

static void nested_groups_and_sections(void) {
  long y = 0, w = 0;
  int a[A];
  memset(a, 0, sizeof a);
#pragma omp parallel
#pragma omp single
#pragma omp taskgroup task_reduction(+ : y)
  {
    for (int i = 0; i < 10; ++i) {
#pragma omp task in_reduction(+ : y)
      y += i;
    }
#pragma omp taskgroup task_reduction(+ : w) task_reduction(+ : a [2:10])
    for (int i = 0; i < 30; ++i) {
      /* y: registered by the outer group, found through the chain */
#pragma omp task in_reduction(+ : y, w) in_reduction(+ : a [2:10])
      {
        y += 100;
        w += i;
        for (int k = 2; k < 12; ++k) a[k] += k;
      }
    }
    /* the inner group has ended: its sums are in */
    if (w != 435 || a[2] != 60) y = -1000000;
  }
  int ok = 1;
  for (int k = 0; k < A; ++k) ok &= a[k] == ((k >= 2 && k < 12) ? 30 * k : 0);
  CHECK(y == 45 + 3000 && w == 435 && ok);
  printf("nested: %ld %ld %d %d\n", y, w, a[2], a[11]);
}

static void team_reductions(void) {
  long z = 0, v = 0, s = 0, tl = 0, sc = 0;
  double dz = 1.0;
  int nt = 0, nt2 = 0;
#pragma omp parallel reduction(task, + : z) reduction(task, * : dz)
  {
#pragma omp master
    nt = omp_get_num_threads();
    z += 1000; /* the implicit task's own copy */
    for (int i = 0; i < 8; ++i) {
#pragma omp task in_reduction(+ : z) in_reduction(* : dz)
      {
        z += i;
        dz *= i == 3 ? 2.0 : 1.0;
      }
    }
  }
#pragma omp parallel
  {
#pragma omp master
    nt2 = omp_get_num_threads();
#pragma omp for reduction(task, + : v) schedule(dynamic, 3)
    for (int i = 0; i < N; ++i) {
#pragma omp task in_reduction(+ : v)
      v += i;
    }
#pragma omp sections reduction(task, + : s)
    {
#pragma omp section
      {
#pragma omp task in_reduction(+ : s)
        s += 5;
      }
#pragma omp section
      s += 7;
    }
#pragma omp scope reduction(task, + : sc)
    {
      sc += 1;
#pragma omp task in_reduction(+ : sc)
      sc += 10;
    }
#pragma omp single
#pragma omp taskgroup task_reduction(+ : tl)
    {
#pragma omp taskloop in_reduction(+ : tl) grainsize(10)
      for (int i = 0; i < N; ++i) tl += i;
    }
  }
  /* each implicit task added 1000, and its tasks 28 and a factor 2 */
  CHECK(nt > 0 && z == 1028L * nt && dz == (double)(1L << nt));
  CHECK(v == (long)N * (N - 1) / 2 && s == 12 && tl == v && sc == 11L * nt2);
  printf("team: %ld %g %ld %ld %ld %ld\n", nt ? z / nt : -1, nt ? dz / (1L << nt) : -1, v, s, tl,
         nt2 ? sc / nt2 : -1);
}

/* A taskloop reduction whose chunks create in_reduction tasks, and an
 * orphaned taskgroup (no parallel region). */
static void taskloop_with_tasks(void) {
  int r = 0, q = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
#pragma omp taskloop reduction(+ : r)
  for (int i = 1; i < 4; ++i) {
    r += i;
#pragma omp task in_reduction(+ : r)
    r += 10 * i;
  }
#pragma omp taskgroup task_reduction(+ : q)
  for (int i = 0; i < 5; ++i) {
#pragma omp task in_reduction(+ : q)
    q += i;
  }
  CHECK(r == 66 && q == 10);
  printf("taskloop tasks: %d %d\n", r, q);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The in_reduction bodies overlap: each waits (up to 2 s) for a second one. */
static void concurrency(void) {
  int inside = 0, most = 0, threads = 1;
  long sum = 0;
#pragma omp parallel
#pragma omp single
  {
    threads = omp_get_num_threads();
#pragma omp taskgroup task_reduction(+ : sum)
    for (int i = 0; i < 8; ++i) {
#pragma omp task in_reduction(+ : sum) shared(inside, most)
      {
        int in = 0;
#pragma omp atomic capture
        in = ++inside;
        int seen = in;
        for (double end = now() + 2.0; seen < 2 && threads > 1 && now() < end;) {
#pragma omp atomic read
          seen = most;
          seen = seen > in ? seen : in;
        }
#pragma omp critical
        most = in > most ? in : most;
        sum += i;
#pragma omp atomic
        --inside;
      }
    }
  }
  CHECK(sum == 28);
  if (threads > 1) CHECK(most >= 2);
  printf("concurrency: %ld\n", sum);
}

int main(void) {
  taskloops();
  operators();
  nested_groups_and_sections();
  team_reductions();
  taskloop_with_tasks();
  concurrency();
  return finish("task_reductions");
}
