/* Deterministic results of OpenMP constructs, printed one per line: the
 * gomp_compare tests run this one binary (linked with libgomp) plain and
 * with libjoule-omp preloaded, with the same team size, and require the
 * same output. Every value is independent of how a conforming runtime
 * interleaves the team: floating-point sums are either exact (multiples of
 * 1/2 far below 2^53) or combined in a fixed order from per-iteration or
 * per-thread slots, and loop sizes are multiples of every team size used. */
#include <math.h>
#include <omp.h>
#include <stdio.h>

#define N 1200 /* divisible by 1, 2, 3, 4, 5, 6 */

static double a[N], b[N];

static void reductions(void) {
  long isum = 0, iprod = 1, band = -1, bor = 0, bxor = 0;
  int land = 1, lor = 0;
  double dsum = 0, dmax = -1e300, dmin = 1e300;
#pragma omp parallel for reduction(+ : isum, dsum) reduction(* : iprod) reduction(max : dmax) \
    reduction(min : dmin) reduction(& : band) reduction(| : bor) reduction(^ : bxor)          \
    reduction(&& : land) reduction(|| : lor)
  for (int i = 0; i < N; ++i) {
    isum += i;
    dsum += 0.5 * i;
    if (i % 100 == 1) iprod *= 3;
    dmax = fmax(dmax, sin(i));
    dmin = fmin(dmin, cos(i));
    band &= ~(1L << (i % 40));
    bor |= 1L << (i % 50);
    bxor ^= (long)i * 2654435761L;
    land = land && (i < N);
    lor = lor || (i == N / 3);
  }
  printf("reduce %ld %.17g %ld %.17g %.17g %ld %ld %ld %d %d\n", isum, dsum, iprod, dmax, dmin,
         band, bor, bxor, land, lor);
}

/* A schedule fills per-iteration slots; the norm is summed in order. */
static double ordered_norm(const double *v) {
  double s = 0;
  for (int i = 0; i < N; ++i) s += v[i] * v[i];
  return sqrt(s);
}

static void schedules(void) {
#pragma omp parallel for schedule(static)
  for (int i = 0; i < N; ++i) a[i] = sin(0.01 * i);
  printf("static %.17g\n", ordered_norm(a));
#pragma omp parallel for schedule(static, 7)
  for (int i = 0; i < N; ++i) a[i] = cos(0.02 * i) * omp_get_num_threads();
  printf("static7 %.17g\n", ordered_norm(a));
#pragma omp parallel for schedule(dynamic, 3)
  for (int i = 0; i < N; ++i) a[i] = sqrt(i + 0.5);
  printf("dynamic3 %.17g\n", ordered_norm(a));
#pragma omp parallel for schedule(guided, 5)
  for (int i = N - 1; i >= 0; i -= 2) a[i] = exp(-0.001 * i);
  printf("guided5 %.17g\n", ordered_norm(a));
  long c = 0;
#pragma omp parallel for collapse(2) schedule(runtime) reduction(+ : c)
  for (int i = 0; i < 40; ++i)
    for (int j = 0; j < 30; ++j) c += (long)i * j;
  printf("collapse %ld\n", c);
}

/* Per-thread partial sums (static blocks), combined in thread order. */
static void per_thread(void) {
  double part[64] = {0};
  int team = 0;
#pragma omp parallel
  {
    const int me = omp_get_thread_num();
#pragma omp single
    team = omp_get_num_threads();
    double s = 0;
#pragma omp for schedule(static)
    for (int i = 0; i < N; ++i) s += 1.0 / (i + 1.0);
    part[me] = s;
  }
  double total = 0;
  for (int t = 0; t < team; ++t) total += part[t];
  printf("team %d harmonic %.17g\n", team, total);
}

static void sync_constructs(void) {
  int seq[N / 10], pos = 0, shared_v = 0, sect[3] = {0}, count = 0, last = -1;
#pragma omp parallel for ordered schedule(dynamic, 2)
  for (int i = 0; i < N / 10; ++i) {
#pragma omp ordered
    seq[pos++] = i * i % 97;
  }
  long h = 0;
  for (int i = 0; i < N / 10; ++i) h = h * 31 + seq[i];
#pragma omp parallel
  {
    int v;
#pragma omp single copyprivate(v)
    v = 4242;
#pragma omp atomic
    shared_v += v;
#pragma omp sections
    {
#pragma omp section
      sect[0] = 11;
#pragma omp section
      sect[1] = 22;
#pragma omp section
      sect[2] = 33;
    }
#pragma omp for lastprivate(last)
    for (int i = 0; i < N; ++i) last = i;
#pragma omp critical
    count += 1;
  }
  printf("ordered %ld copyprivate %d sections %d %d %d lastprivate %d critical %d\n", h,
         shared_v / count, sect[0], sect[1], sect[2], last, count);
}

static long fib(int n) {
  if (n < 2) return n;
  if (n < 12) return fib(n - 1) + fib(n - 2);
  long x, y;
#pragma omp task shared(x)
  x = fib(n - 1);
#pragma omp task shared(y)
  y = fib(n - 2);
#pragma omp taskwait
  return x + y;
}

static void tasks(void) {
  long f = 0, chain = 1, loopsum = 0;
#pragma omp parallel
#pragma omp single
  {
    f = fib(24);
    for (int i = 0; i < 50; ++i) {
#pragma omp task depend(inout : chain) firstprivate(i)
      chain = (chain * 3 + i) % 1000003;
    }
#pragma omp taskwait
#pragma omp taskloop grainsize(16)
    for (int i = 0; i < N; ++i) b[i] = 0.25 * i;
  }
  for (int i = 0; i < N; ++i) loopsum += (long)(4 * b[i]);
  printf("fib %ld chain %ld taskloop %ld\n", f, chain, loopsum);
}

/* A small Jacobi relaxation: static rows, the residual kept per row. */
static void jacobi(void) {
  enum { M = 48 };
  static double u[M][M], v[M][M], res[M];
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < M; ++j) u[i][j] = (i == 0 || j == M - 1) ? 1.0 : 0.0;
  for (int it = 0; it < 30; ++it) {
#pragma omp parallel for schedule(static)
    for (int i = 1; i < M - 1; ++i) {
      res[i] = 0;
      for (int j = 1; j < M - 1; ++j) {
        v[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
        res[i] += fabs(v[i][j] - u[i][j]);
      }
    }
#pragma omp parallel for schedule(static)
    for (int i = 1; i < M - 1; ++i)
      for (int j = 1; j < M - 1; ++j) u[i][j] = v[i][j];
  }
  double r = 0;
  for (int i = 1; i < M - 1; ++i) r += res[i];
  printf("jacobi %.17g %.17g\n", r, u[M / 2][M / 2]);
}

int main(void) {
  reductions();
  schedules();
  per_thread();
  sync_constructs();
  tasks();
  jacobi();
  return 0;
}
