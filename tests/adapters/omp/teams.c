/* Host teams (OpenMP 5.0: teams not nested in target) and distribute, as
 * gcc -fopenmp lowers them: GOMP_teams_reg runs the league, distribute is
 * inline code over omp_get_num_teams() / omp_get_team_num(). Prints only
 * what a conforming runtime cannot change (sums, per-team counts in
 * team-number order, the clauses' values), so that the output matches
 * libgomp's byte for byte (compare_runs.sh), and checks itself. */
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

int joule_num_workers(void) __attribute__((weak));
/* What GCC 12 emits for `target teams` inside the target region's body. */
_Bool GOMP_teams4(unsigned num_teams_low, unsigned num_teams_high, unsigned thread_limit,
                  _Bool first);

/* GCC rejects most omp_* calls lexically inside teams: called through these. */
__attribute__((noinline)) static int level(void) { return omp_get_level(); }
__attribute__((noinline)) static int thread_limit(void) { return omp_get_thread_limit(); }
__attribute__((noinline)) static int in_parallel(void) { return omp_in_parallel(); }
/* GCC 12 allows no atomic construct strictly inside teams (OpenMP 5.0). */
static void add(int *p, int v) { __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
static int get(int *p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }

#define MAX_TEAMS 64

/* A league of n teams: each number 0..n-1 once, all at level 0. */
static void league(int n) {
  int ran[MAX_TEAMS] = {0}, size[MAX_TEAMS] = {0}, lvl[MAX_TEAMS] = {0};
#pragma omp teams num_teams(n)
  {
    const int t = omp_get_team_num();
    add(&ran[t], 1);
    size[t] = omp_get_num_teams();
    lvl[t] = level() + in_parallel();
  }
  int once = 0, sizes = 0, levels = 0;
  for (int t = 0; t < n; ++t) {
    once += ran[t] == 1;
    sizes += size[t] == n;
    levels += lvl[t];
  }
  CHECK(once == n && sizes == n && levels == 0);
  printf("teams %d: ran once %d, num_teams right %d, level sum %d\n", n, once, sizes, levels);
}

/* distribute with the default and a chunked dist_schedule, and collapse. */
static void distribute(void) {
  int count[MAX_TEAMS] = {0}, chunked[MAX_TEAMS] = {0}, owner[100];
  long sum = 0;
#pragma omp teams distribute num_teams(4) reduction(+ : sum)
  for (int i = 0; i < 1000; ++i) {
#pragma omp atomic
    count[omp_get_team_num()]++;
    sum += i;
  }
#pragma omp teams distribute num_teams(3) dist_schedule(static, 7)
  for (int i = 0; i < 100; ++i) {
    owner[i] = omp_get_team_num();
#pragma omp atomic
    chunked[omp_get_team_num()]++;
  }
  long grid = 0;
#pragma omp teams distribute collapse(2) num_teams(5) reduction(+ : grid)
  for (int i = 0; i < 30; ++i)
    for (int j = 0; j < 40; ++j) grid += i * 40 + j;
  CHECK(sum == 499500 && grid == 1199L * 1200 / 2);
  for (int i = 0; i < 100; ++i) CHECK(owner[i] == (i / 7) % 3);
  printf("distribute: sum %ld per team %d %d %d %d; grid %ld\n", sum, count[0], count[1], count[2],
         count[3], grid);
  printf("dist_schedule(static, 7): per team %d %d %d; owner of 50: %d\n", chunked[0], chunked[1],
         chunked[2], owner[50]);
}

/* teams distribute parallel for (and simd) with reductions, on more teams
 * than workers too. */
static void distribute_parallel(int n) {
  long sum = 0;
  double dot = 0;
#pragma omp teams distribute parallel for num_teams(n) reduction(+ : sum) schedule(dynamic, 3)
  for (long i = 0; i < 100000; ++i) sum += i % 97;
#pragma omp teams distribute parallel for simd num_teams(n) reduction(+ : dot) \
    dist_schedule(static, 128)
  for (int i = 0; i < 4096; ++i) dot += 0.5 * i;
  long expect = 0;
  for (long i = 0; i < 100000; ++i) expect += i % 97;
  CHECK(sum == expect && dot == 0.5 * 4095 * 4096 / 2);
  printf("teams %d distribute parallel for: sum %ld, simd dot %.1f\n", n, sum, dot);
}

/* A parallel region in each team forms a team of threads of that team:
 * level 1, the team's number inside; thread_limit caps it. */
static void nested(void) {
  int wrong[MAX_TEAMS] = {0}, over[MAX_TEAMS] = {0}, limit[MAX_TEAMS] = {0};
  long sums[MAX_TEAMS] = {0};
#pragma omp teams num_teams(3) thread_limit(2)
  {
    const int t = omp_get_team_num();
    limit[t] = thread_limit();
    long s = 0;
#pragma omp parallel reduction(+ : s)
    {
      if (omp_get_team_num() != t || omp_get_num_teams() != 3 || omp_get_level() != 1) {
#pragma omp atomic
        wrong[t]++;
      }
      if (omp_get_num_threads() > 2) {
#pragma omp atomic
        over[t]++;
      }
#pragma omp for
      for (int i = 0; i <= 100; ++i) s += i * (t + 1);
    }
    sums[t] = s;
  }
  for (int t = 0; t < 3; ++t) CHECK(!wrong[t] && !over[t] && limit[t] == 2);
  printf("nested parallel: sums %ld %ld %ld, wrong %d %d %d, over limit %d %d %d, limit %d\n",
         sums[0], sums[1], sums[2], wrong[0], wrong[1], wrong[2], over[0], over[1], over[2],
         limit[0]);
}

/* Without num_teams: nteams-var (omp_set_num_teams), else the default. */
static void icvs(void) {
  int seen[MAX_TEAMS] = {0}, n = 0;
#pragma omp teams
  {
    if (omp_get_team_num() == 0) n = omp_get_num_teams();
    add(&seen[omp_get_team_num() % MAX_TEAMS], 1);
  }
  int total = 0;
  for (int t = 0; t < MAX_TEAMS; ++t) total += seen[t];
  CHECK(n >= 1 && total == n);
  omp_set_num_teams(5);
  omp_set_teams_thread_limit(3);
  int five = 0, limit = 0;
#pragma omp teams
  {
    if (omp_get_team_num() == 4) {
      five = omp_get_num_teams();
      limit = thread_limit();
    }
  }
  CHECK(five == 5 && limit == 3 && omp_get_max_teams() == 5 && omp_get_teams_thread_limit() == 3);
  printf("icvs: default league complete %d; set: %d teams, limit %d, max_teams %d\n", total == n,
         five, limit, omp_get_max_teams());
  omp_set_num_teams(0);
  omp_set_teams_thread_limit(0);
  printf("outside: num_teams %d team_num %d teams_thread_limit %d\n", omp_get_num_teams(),
         omp_get_team_num(), omp_get_teams_thread_limit());
}

/* On joule, two teams run at once when there are two workers: they meet
 * (libgomp runs host teams one after the other, so it is skipped there). */
static void concurrent(void) {
  if (!on_joule() || !joule_num_workers || joule_num_workers() < 2) return;
  int arrived = 0;
#pragma omp teams num_teams(2)
  {
    add(&arrived, 1);
    while (get(&arrived) < 2) {
    }
  }
  CHECK(arrived == 2);
}

/* Teams inside a target region on the host: the body runs once per team
 * on this thread, 0..n-1, n the lower bound (1 without num_teams). Last in
 * the program: after its loop libgomp leaves the thread's teams state as the
 * last team's (its target fallback restores it), joule restores it at once. */
static void target_teams(void) {
  const unsigned bounds[][3] = {{2, 5, 7}, {0, 0, 0}, {0, 3, 0}, {3, 3, 2}};
  for (int b = 0; b < 4; ++b) {
    const unsigned lo = bounds[b][0], limit = bounds[b][2];
    printf("teams4(%u, %u, %u):", lo, bounds[b][1], limit);
    int next = 0;
    for (_Bool first = 1; GOMP_teams4(lo, bounds[b][1], limit, first); first = 0) {
      CHECK(omp_get_team_num() == next++ && omp_get_num_teams() == (int)(lo ? lo : 1));
      CHECK(limit == 0 || omp_get_thread_limit() == (int)limit);
      printf(" %d/%d", omp_get_team_num(), omp_get_num_teams());
    }
    CHECK(next == (int)(lo ? lo : 1));
    printf("\n");
  }
}

int main(void) {
  const int sizes[] = {1, 3, 8, 40};
  for (int i = 0; i < 4; ++i) league(sizes[i]);
  distribute();
  distribute_parallel(2);
  distribute_parallel(33);
  nested();
  icvs();
  concurrent();
  target_teams();
  return finish("teams");
}
