/* distribute parallel for on the host and reductions in the LLVM ABI:
 * clang's teams distribute parallel for (fork_teams, a distribute
 * static_init, a nested parallel loop), the combined entry points other
 * compilers call (__kmpc_dist_for_static_init_*, __kmpc_dist_dispatch_init_*,
 * called here as compiled code calls them), and reductions of every
 * kind clang folds with atomics (the atomic method) next to a user-defined
 * one (the critical method). Prints results a conforming runtime cannot
 * change; compared with libomp's output (kmpc.cmake). */
#include <limits.h>
#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

#define N 10007

typedef struct {
  int32_t reserved_1, flags, reserved_2, reserved_3;
  const char* psource;
} ident_t;
int32_t __kmpc_global_thread_num(ident_t*);
void __kmpc_dist_for_static_init_4(ident_t*, int32_t, int32_t, int32_t*, int32_t*, int32_t*,
                                   int32_t*, int32_t*, int32_t, int32_t);
void __kmpc_dist_for_static_init_8u(ident_t*, int32_t, int32_t, int32_t*, uint64_t*, uint64_t*,
                                    uint64_t*, int64_t*, int64_t, int64_t);
void __kmpc_for_static_fini(ident_t*, int32_t);
void __kmpc_dist_dispatch_init_4(ident_t*, int32_t, int32_t, int32_t*, int32_t, int32_t, int32_t,
                                 int32_t);
int32_t __kmpc_dispatch_next_4(ident_t*, int32_t, int32_t*, int32_t*, int32_t*, int32_t*);

int32_t __kmpc_reduce_nowait(ident_t*, int32_t, int32_t, size_t, void*, void (*)(void*, void*),
                             void*);
void __kmpc_end_reduce_nowait(ident_t*, int32_t, void*);

static ident_t loc = {0, 2, 0, 0, ";dist_reductions.c;main;0;0;;"};
/* 0x10: KMP_IDENT_ATOMIC_REDUCE, what clang sets when it emitted atomics. */
static ident_t loc_atomic = {0, 0x12, 0, 0, ";dist_reductions.c;main;0;0;;"};
static char lock_word[32];

static void fold(void* a, void* b) { *(long*)a += *(long*)b; }

/* The method joule answers (libomp may pick a tree): atomic (2) in a team
 * of more than one when the compiler says it emitted atomics, else 1, the
 * critical section (the lock taken: end_reduce_nowait releases it). */
static void method(int* wrong) {
  const int32_t gtid = __kmpc_global_thread_num(&loc);
  const int team = omp_get_num_threads();
  long v = 1;
  int32_t m = __kmpc_reduce_nowait(&loc_atomic, gtid, 1, sizeof v, &v, fold, lock_word);
  if (m == 1) __kmpc_end_reduce_nowait(&loc_atomic, gtid, lock_word);
  if (on_joule() && m != (team > 1 ? 2 : 1)) ++*wrong;
  m = __kmpc_reduce_nowait(&loc, gtid, 1, sizeof v, &v, fold, lock_word);
  if (m == 1) __kmpc_end_reduce_nowait(&loc, gtid, lock_word);
  if (on_joule() && m != 1) ++*wrong;
}
static int seen[N], lasts;

static void clear(void) {
  memset(seen, 0, sizeof seen);
  lasts = 0;
}
static int covered(void) {
  for (int i = 0; i < N; ++i)
    if (seen[i] != 1) return 0;
  return 1;
}

/* Iterations [lo, hi] ran here (nothing when lo > hi); `last`: this thread
 * was told it has the last one. */
static void mark(int64_t lo, int64_t hi, int32_t last) {
  CHECK(lo >= 0 && hi <= N - 1);
  for (int64_t i = lo < 0 ? 0 : lo; i <= hi && i <= N - 1; ++i) {
#pragma omp atomic
    seen[i]++;
  }
  if (last) {
#pragma omp atomic
    lasts++;
  }
}

/* One thread's share of [0, N) by the combined static entry point; kind 34
 * (static) or 33 (static chunked: chunk after chunk of hi - lo + 1). */
static void dist_static_4(int kind, int chunk) {
  const int32_t gtid = __kmpc_global_thread_num(&loc);
  int32_t last = 0, lo = 0, hi = N - 1, hi_dist = N - 1, stride = 1;
  __kmpc_dist_for_static_init_4(&loc, gtid, kind, &last, &lo, &hi, &hi_dist, &stride, 1, chunk);
  for (int32_t b = lo; b <= hi_dist; b += stride) {
    const int32_t e = b + (hi - lo);
    mark(b, e < hi_dist ? e : hi_dist, b == lo ? last : 0);
  }
  __kmpc_for_static_fini(&loc, gtid);
}

static void dist_static_8u(void) {
  const int32_t gtid = __kmpc_global_thread_num(&loc);
  int32_t last = 0;
  uint64_t lo = 0, hi = N - 1, hi_dist = N - 1;
  int64_t stride = 1;
  __kmpc_dist_for_static_init_8u(&loc, gtid, 34, &last, &lo, &hi, &hi_dist, &stride, 1, 0);
  if (lo <= hi) mark((int64_t)lo, (int64_t)hi, last);
  __kmpc_for_static_fini(&loc, gtid);
}

static void dist_dynamic_4(void) {
  const int32_t gtid = __kmpc_global_thread_num(&loc);
  int32_t team_last = 0, last = 0, lo = 0, hi = 0, stride = 0;
  __kmpc_dist_dispatch_init_4(&loc, gtid, 35, &team_last, 0, N - 1, 1, 5);
  while (__kmpc_dispatch_next_4(&loc, gtid, &last, &lo, &hi, &stride)) mark(lo, hi, 0);
}

typedef struct {
  long lo, hi;
} range_t;
static void span_fold(range_t* out, const range_t* in) {
  if (in->lo < out->lo) out->lo = in->lo;
  if (in->hi > out->hi) out->hi = in->hi;
}
#pragma omp declare reduction(span:range_t                    \
                              : span_fold(&omp_out, &omp_in)) \
    initializer(omp_priv = (range_t){LONG_MAX, LONG_MIN})

int main(void) {
  for (int kind = 33; kind <= 34; ++kind) {
    clear();
#pragma omp teams num_teams(3)
#pragma omp parallel
    dist_static_4(kind, kind == 33 ? 7 : 0);
    CHECK(covered());
    CHECK(lasts == 1);
  }
  clear();
#pragma omp teams num_teams(2)
#pragma omp parallel
  dist_static_8u();
  CHECK(covered());
  CHECK(lasts == 1);
  clear();
#pragma omp teams num_teams(3)
#pragma omp parallel
  dist_dynamic_4();
  CHECK(covered());

  int wrong = 0;
#pragma omp parallel reduction(+ : wrong)
  method(&wrong);
  CHECK(wrong == 0);

  long s = 0, p = 1;
  unsigned x = 0, o = 0;
  int mn = INT_MAX, mx = INT_MIN, all = 1, any = 0;
  double d = 0, dm = 0;
  float f = 0;
  long double ld = 0;
  range_t r = {LONG_MAX, LONG_MIN};
#pragma omp teams distribute parallel for num_teams(3) reduction(+ : s, d, f, ld) \
    reduction(* : p) reduction(^ : x) reduction(| : o) reduction(min : mn) reduction(max : mx, dm) \
    reduction(&& : all) reduction(|| : any) reduction(span : r)
  for (int i = 0; i < N; ++i) {
    s += i;
    d += i % 8;
    f += i % 4;
    ld += i % 3;
    if (i % 1000 == 999) p *= 2;
    x ^= (unsigned)i;
    o |= 1u << (i % 31);
    if (i - 50 < mn) mn = i - 50;
    if (i + 50 > mx) mx = i + 50;
    if (i % 9 > dm) dm = i % 9;
    all = all && i >= 0;
    any = any || i == N - 1;
    if (i < r.lo) r.lo = i;
    if (i > r.hi) r.hi = i;
  }
  printf("sum %ld prod %ld xor %u or %x min %d max %d and %d or %d\n", s, p, x, o, mn, mx, all,
         any);
  printf("double %.1f float %.1f long double %.1Lf max %.1f span %ld..%ld\n", d, f, ld, dm, r.lo,
         r.hi);

  long inner = 0, after = -1;
  int bad = 0;
#pragma omp parallel
  {
#pragma omp for reduction(+ : inner) schedule(dynamic, 13)
    for (int i = 0; i < N; ++i) inner += i;
    /* The construct's barrier comes after the fold, whatever the method. */
    if (inner != (long)N * (N - 1) / 2) {
#pragma omp atomic
      bad++;
    }
#pragma omp single
    after = inner;
  }
  CHECK(bad == 0);
  printf("worksharing %ld\n", after);

  long t = 0;
#pragma omp teams distribute parallel for dist_schedule(static, 64) schedule(guided, 4) \
    reduction(+ : t) num_teams(4)
  for (long i = 0; i < N; ++i) t += i * 3;
  printf("guided teams %ld\n", t);
  return finish("dist_reductions");
}
