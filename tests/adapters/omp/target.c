/* Target constructs on a node without an offload device (gcc -fopenmp, no
 * offload compiler): the regions run on the host, as libgomp's host
 * fallback runs them. Every printed value is one a conforming runtime
 * cannot change (the gomp_target_vs_libgomp tests compare the output with
 * libgomp's byte for byte); the checks make it self-checking when linked
 * against libjoule-omp alone. */
#include <errno.h>
#include <limits.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#define N 64

typedef struct {
  double v[8];
} __attribute__((aligned(64))) Wide;

static void maps(void) {
  int in[N], out[N], both[N], scratch[N];
  for (int i = 0; i < N; ++i) {
    in[i] = i;
    out[i] = -1;
    both[i] = 2 * i;
  }
#pragma omp target map(to : in) map(from : out) map(tofrom : both) map(alloc : scratch)
  {
    for (int i = 0; i < N; ++i) scratch[i] = 3 * in[i];
    for (int i = 0; i < N; ++i) {
      out[i] = scratch[i] + 1;
      both[i] += in[i];
    }
  }
  long s_out = 0, s_both = 0;
  for (int i = 0; i < N; ++i) {
    s_out += out[i];
    s_both += both[i];
  }
  printf("maps: out %ld tofrom %ld\n", s_out, s_both);
  CHECK(s_out == 3L * N * (N - 1) / 2 + N);
  CHECK(s_both == 3L * N * (N - 1) / 2);
}

static void firstprivates(void) {
  int scalar = 5, arr[4] = {1, 2, 3, 4}, seen = 0, seen_arr = 0, aligned = 0;
  double d = 1.5, seen_d = 0, big[1000], seen_big = 0;
  Wide wide = {{1, 2, 3, 4, 5, 6, 7, 8}};
  for (int i = 0; i < 1000; ++i) big[i] = i;
#pragma omp target firstprivate(scalar, d, arr, big, wide) \
    map(from                                               \
        : seen, seen_d, seen_arr, seen_big, aligned)
  {
    scalar += 10;
    d *= 2;
    arr[0] += 100;
    big[999] = -1;
    wide.v[7] = 0;
    seen = scalar;
    seen_d = d;
    seen_arr = arr[0] + arr[3];
    for (int i = 0; i < 1000; ++i) seen_big += big[i];
    aligned = (int)((uintptr_t)&wide % 64 == 0) + (int)wide.v[6];
  }
  printf("firstprivate: inside %d %.1f %d %.1f %d, outside %d %.1f %d %.1f %.1f\n", seen, seen_d,
         seen_arr, seen_big, aligned, scalar, d, arr[0], big[999], wide.v[7]);
  CHECK(seen == 15 && seen_d == 3.0 && seen_arr == 105 && aligned == 8);
  CHECK(scalar == 5 && d == 1.5 && arr[0] == 1 && big[999] == 999 && wide.v[7] == 8);
}

static void device_ptrs_and_defaultmap(void) {
  const int host = omp_get_initial_device();
  int* buf = (int*)omp_target_alloc(N * sizeof(int), host);
  CHECK(buf != NULL);
#pragma omp target is_device_ptr(buf)
  for (int i = 0; i < N; ++i) buf[i] = i * i;
  int copy[N];
  CHECK(omp_target_memcpy(copy, buf, N * sizeof(int), 0, 0, host, host) == 0);
  long squares = 0;
  for (int i = 0; i < N; ++i) squares += copy[i];
  omp_target_free(buf, host);
  int count = 0, untouched = 1;
  double total = 0;
#pragma omp target defaultmap(tofrom : scalar)
  {
    count = 7;
    total = 2.5;
  }
#pragma omp target /* a scalar is firstprivate by default */
  {
    untouched += 1;
    if (untouched != 2) untouched = 0;
  }
  printf("is_device_ptr %ld, defaultmap %d %.1f, default firstprivate %d\n", squares, count, total,
         untouched);
  CHECK(squares == 85344 && count == 7 && total == 2.5 && untouched == 1);
}

static void target_parallel(void) {
  long sum = 0;
#pragma omp target parallel for reduction(+ : sum) map(tofrom : sum)
  for (int i = 0; i < 1000; ++i) sum += i;
  int level = -1, limit = 0, team = 0;
#pragma omp target parallel map(from : level, team)
  if (omp_get_thread_num() == 0) {
    level = omp_get_level();
    team = omp_get_num_threads() >= 1;
  }
#pragma omp target thread_limit(3) map(from : limit)
  limit = omp_get_thread_limit();
  int within = 0;
#pragma omp target parallel thread_limit(2) map(from : within)
  if (omp_get_thread_num() == 0) within = omp_get_num_threads() <= 2;
  printf("target parallel for: %ld, level %d %d, thread_limit %d, team within it %d\n", sum, level,
         team, limit, within);
  CHECK(sum == 499500 && level == 1 && team && limit == 3 && within);
}

static void data_constructs(void) {
  int v[N], w[N];
  for (int i = 0; i < N; ++i) v[i] = w[i] = i;
  long first = 0, second = 0;
#pragma omp target data map(tofrom : v)
  {
#pragma omp target
    for (int i = 0; i < N; ++i) v[i] += 1;
#pragma omp target update from(v)
    for (int i = 0; i < N; ++i) first += v[i];
    for (int i = 0; i < N; ++i) v[i] *= 10;
#pragma omp target update to(v)
#pragma omp target
    for (int i = 0; i < N; ++i) v[i] += 2;
  }
  for (int i = 0; i < N; ++i) second += v[i];
  int* p = w;
#pragma omp target enter data map(to : p [0:N])
#pragma omp target map(tofrom : p [0:N])
  for (int i = 0; i < N; ++i) p[i] += 5;
#pragma omp target exit data map(from : p [0:N])
  long third = 0;
  for (int i = 0; i < N; ++i) third += w[i];
  printf("target data: %ld %ld, enter/exit data: %ld\n", first, second, third);
  CHECK(first == (long)N * (N + 1) / 2 && second == 10 * first + 2 * N);
  CHECK(third == (long)N * (N - 1) / 2 + 5 * N);
}

/* target nowait with depend, from one thread of a team: an inout chain
 * (each step depends on the order), readers fanning out after a writer,
 * and update / enter data tasks in the chain; a taskwait ends them. (Made
 * outside any parallel region, such tasks sometimes hang GCC 12's libgomp
 * in a later region with target regions in it.) */
static void nowait_chains(void) {
  long x = 1, slots[8] = {0}, after = 0;
  int y[N];
  for (int i = 0; i < N; ++i) y[i] = 1;
  for (int i = 0; i < 12; ++i) {
#pragma omp target nowait depend(inout : x) map(tofrom : x) firstprivate(i)
    x = x * 3 + i;
  }
  for (int k = 0; k < 8; ++k) {
#pragma omp target nowait depend(in : x) depend(out : slots[k]) map(to : x) map(from : slots [k:1])
    slots[k] = x + k;
  }
#pragma omp target update to(y) nowait depend(inout : y)
#pragma omp target enter data map(to : y) nowait depend(inout : y)
#pragma omp target nowait depend(inout : y) map(tofrom : y)
  for (int i = 0; i < N; ++i) y[i] *= 2;
#pragma omp target exit data map(from : y) nowait depend(inout : y)
#pragma omp target depend(in : y) depend(inout : after) map(to : y) map(tofrom : after)
  for (int i = 0; i < N; ++i) after += y[i];
#pragma omp taskwait
  long s = 0;
  for (int k = 0; k < 8; ++k) s += slots[k];
  printf("nowait depend: chain %ld, readers %ld, after %ld\n", x, s, after);
  long want = 1;
  for (int i = 0; i < 12; ++i) want = want * 3 + i;
  CHECK(x == want && s == 8 * want + 28 && after == 2 * N);
}

/* Each thread of a team, and tasks, meet target regions: each starts
 * outside any parallel region, and a parallel inside is a new team. */
static void inside_parallel_and_tasks(void) {
  int ok = 0, threads = 0;
  long inner = 0;
#pragma omp parallel reduction(+ : ok, threads, inner)
  {
    int level = -1, in_par = -1, num = -1, initial = -1;
    long s = 0;
#pragma omp target map(from : level, in_par, num, initial) map(tofrom : s)
    {
      level = omp_get_level();
      in_par = omp_in_parallel();
      num = omp_get_num_threads() + omp_get_thread_num();
      initial = omp_is_initial_device();
#pragma omp parallel for reduction(+ : s)
      for (int i = 0; i < 100; ++i) s += i + 100 * omp_get_level();
    }
    ok += level == 0 && in_par == 0 && num == 1 && initial == 1;
    threads += 1;
    inner += s;
  }
  long tasks[6] = {0};
#pragma omp parallel
#pragma omp single
  for (int k = 0; k < 6; ++k) {
#pragma omp task firstprivate(k) shared(tasks)
    {
      long s = 0;
      int level = -1;
#pragma omp target map(tofrom : s) map(from : level) firstprivate(k)
      {
        level = omp_get_level();
#pragma omp parallel for reduction(+ : s)
        for (int i = 0; i <= 100; ++i) s += (long)i * (k + 1);
      }
      tasks[k] = s + 1000000 * level;
    }
  }
  long t = 0;
  for (int k = 0; k < 6; ++k) t += tasks[k];
  printf("in parallel: all threads %d, inner %ld; in tasks: %ld\n", ok == threads, inner / threads,
         t);
  CHECK(ok == threads && inner == threads * 14950L && t == 5050L * 21);
}

/* in_reduction on target (OpenMP 5.0): GCC maps the task's copy of the
 * variable (GOMP_task_reduction_remap) and the region adds to it, among
 * tasks adding to it too. */
static void in_reductions(void) {
  long r = 0;
#pragma omp parallel
#pragma omp single
#pragma omp taskgroup task_reduction(+ : r)
  for (int k = 1; k <= 10; ++k) {
#pragma omp target in_reduction(+ : r) firstprivate(k)
    r += k;
#pragma omp task in_reduction(+ : r) firstprivate(k)
    r += 100 * k;
  }
  printf("in_reduction: %ld\n", r);
  CHECK(r == 5555);
}

/* target teams (the teams layer's GOMP_teams4 inside the region): the
 * body runs once per team; a parallel in a team obeys thread_limit. */
static void target_teams(void) {
  long sum = 0;
  int per[4] = {0}, teams = 0, within = 0, level = -1;
#pragma omp target teams distribute parallel for reduction(+ : sum) num_teams(3) thread_limit(2) \
    map(tofrom : sum)
  for (int i = 0; i < 1000; ++i) sum += i;
#pragma omp target teams num_teams(4) thread_limit(3) map(tofrom : per, teams, within, level)
  {
    per[omp_get_team_num()] = omp_get_team_num() * 10 + 1;
    if (omp_get_team_num() == 0) teams = omp_get_num_teams();
#pragma omp parallel num_threads(5)
    if (omp_get_thread_num() == 0 && omp_get_team_num() == 1) {
      within = omp_get_num_threads() <= 3;
      level = omp_get_level();
    }
  }
  printf("target teams: %ld, %d teams, team within thread_limit %d, level %d, teams %d %d %d %d\n",
         sum, teams, within, level, per[0], per[1], per[2], per[3]);
  CHECK(sum == 499500 && teams == 4 && within && level == 1 && per[3] == 31);
}

static void device_routines(void) {
  const int host = omp_get_initial_device();
  printf("devices %d initial %d default %d device_num %d initial_device %d\n",
         omp_get_num_devices(), host, omp_get_default_device(), omp_get_device_num(),
         omp_is_initial_device());
  omp_set_default_device(2);
  printf("default after set: %d\n", omp_get_default_device());
  omp_set_default_device(0);
  void* a = omp_target_alloc(32, host);
  void* bad = omp_target_alloc(32, 5);
  int x = 0;
  printf("alloc host %d, bad device %d; present %d %d %d\n", a != NULL, bad != NULL,
         omp_target_is_present(&x, host), omp_target_is_present(&x, 5),
         omp_target_is_present(NULL, 5));
  omp_target_free(a, host);
  int src[4] = {1, 2, 3, 4}, dst[4] = {0};
  int rc = omp_target_memcpy(dst, src, 2 * sizeof(int), sizeof(int), 2 * sizeof(int), host, host);
  printf("memcpy %d: %d %d %d %d; bad device %d %d\n", rc, dst[0], dst[1], dst[2], dst[3],
         omp_target_memcpy(dst, src, 4, 0, 0, host, 7) == EINVAL,
         omp_target_memcpy(dst, src, 4, 0, 0, 7, host) == EINVAL);
  int m[3][4], r[3][4];
  for (int i = 0; i < 12; ++i) ((int*)m)[i] = i, ((int*)r)[i] = 0;
  const size_t vol[2] = {2, 3}, doff[2] = {1, 1}, soff[2] = {0, 1}, dims[2] = {3, 4};
  rc = omp_target_memcpy_rect(r, m, sizeof(int), 2, vol, doff, soff, dims, dims, host, host);
  printf(
      "memcpy_rect query %d, copy %d:",
      omp_target_memcpy_rect(NULL, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, host, host) == INT_MAX,
      rc);
  for (int i = 0; i < 12; ++i) printf(" %d", ((int*)r)[i]);
  printf("; bad device %d\n", omp_target_memcpy_rect(r, m, sizeof(int), 2, vol, doff, soff, dims,
                                                     dims, 3, host) == EINVAL);
  printf("associate %d disassociate %d\n",
         omp_target_associate_ptr(&x, a, sizeof x, 0, host) == EINVAL,
         omp_target_disassociate_ptr(&x, host) == EINVAL);
  CHECK(omp_get_num_devices() == 0 && host == 0 && omp_is_initial_device());
  CHECK(rc == 0 && r[1][1] == 1 && r[2][3] == 7 && r[0][0] == 0);
  /* omp_initial_device (-1), OpenMP 5.1: the host; GCC 12's libgomp lacks it. */
  if (on_joule()) {
    void* h = omp_target_alloc(8, -1);
    CHECK(h != NULL && omp_target_is_present(&x, -1));
    CHECK(omp_target_memcpy(dst, src, 4, 0, 0, -1, host) == 0);
    omp_target_free(h, -1);
  }
}

int main(void) {
  maps();
  firstprivates();
  device_ptrs_and_defaultmap();
  target_parallel();
  data_constructs();
#pragma omp parallel
#pragma omp single
  nowait_chains();
  inside_parallel_and_tasks();
  in_reductions();
  target_teams();
  device_routines();
  return finish("target");
}
