/* Places and binding, run as an ordinary libgomp binary (LD_PRELOAD puts it
 * on libjoule-omp):
 *
 *   places usage N    a task program: tasks must run on N distinct CPUs,
 *                     each team member bound to a CPU of its own (with
 *                     OMP_PROC_BIND / OMP_PLACES / GOMP_CPU_AFFINITY, libgomp
 *                     still binds the main thread from its constructor: the
 *                     process must not lose the other CPUs for it)
 *   places compare    prints the places, the binding and the place of each
 *                     team member, sorted (members are not tied to thread
 *                     numbers on joule): the same on libgomp and libjoule-omp
 *   places primary    the same for the primary thread only */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "check.h"

enum { kMaxCpus = 1024, kTasks = 256 };

static int g_seen[kMaxCpus];
static int g_distinct;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double cpu_seconds(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

/* A task: notes its CPU, then works until every expected CPU has run a task
 * (or 10 s pass), so that no worker can take them all before the others
 * start. */
static void task_body(int expected) {
  const int cpu = sched_getcpu();
  if (cpu >= 0 && cpu < kMaxCpus && __atomic_exchange_n(&g_seen[cpu], 1, __ATOMIC_ACQ_REL) == 0)
    __atomic_add_fetch(&g_distinct, 1, __ATOMIC_ACQ_REL);
  const double end = now() + 0.002, give_up = now() + 10;
  volatile double x = 0;
  while (now() < end ||
         (__atomic_load_n(&g_distinct, __ATOMIC_ACQUIRE) < expected && now() < give_up))
    for (int i = 0; i < 1000; ++i) x = x + 1.0 / (i + 1);
}

/* This thread's only CPU, or -1 when it may run on several. */
static int bound_cpu(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) != 1) return -1;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) return c;
  return -1;
}

static int usage(int expected) {
  int members = 0, member_cpu[kMaxCpus];
  const double wall0 = now(), cpu0 = cpu_seconds();
#pragma omp parallel
  {
#pragma omp critical
    if (members < kMaxCpus) member_cpu[members++] = bound_cpu();
#pragma omp single
    for (int t = 0; t < kTasks; ++t) {
#pragma omp task
      task_body(expected);
    }
  }
  const double wall = now() - wall0, cpu = cpu_seconds() - cpu0;
  printf("team of %d, tasks ran on %d CPUs (expected %d), CPU time %.2f s over %.2f s wall\n",
         members, g_distinct, expected, cpu, wall);
  CHECK(members == expected);
  CHECK(g_distinct == expected);
  CHECK(omp_get_num_procs() == expected);
  for (int i = 0; i < members; ++i) {
    CHECK(member_cpu[i] >= 0);
    for (int j = 0; j < i; ++j) CHECK(member_cpu[i] != member_cpu[j]);
  }
  return finish("places usage");
}

static int compare_places(void) {
  char line[64][128];
  int n = 0, first = 0, len = 0;
  printf("places %d bind %d\n", omp_get_num_places(), omp_get_proc_bind());
  for (int p = 0; p < omp_get_num_places(); ++p) {
    int ids[kMaxCpus];
    omp_get_place_proc_ids(p, ids);
    printf("place %d:", p);
    for (int i = 0; i < omp_get_place_num_procs(p); ++i) printf(" %d", ids[i]);
    printf("\n");
  }
#pragma omp parallel
  {
    int nums[kMaxCpus];
    omp_get_partition_place_nums(nums);
#pragma omp critical
    if (n < 64) {
      first = omp_get_partition_num_places() > 0 ? nums[0] : -1;
      len = omp_get_partition_num_places();
      snprintf(line[n++], sizeof line[0], "member on place %d, partition %d+%d, bind %d",
               omp_get_place_num(), first, len, omp_get_proc_bind());
    }
  }
  qsort(line, (size_t)n, sizeof line[0], (int (*)(const void *, const void *))strcmp);
  for (int i = 0; i < n; ++i) printf("%s\n", line[i]);
  return 0;
}

static int compare_primary(void) {
  int place = -2;
#pragma omp parallel
  if (omp_get_thread_num() == 0) place = omp_get_place_num();
  printf("places %d bind %d primary on place %d\n", omp_get_num_places(), omp_get_proc_bind(),
         place);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 2 && strcmp(argv[1], "usage") == 0) return usage(atoi(argv[2]));
  if (argc > 1 && strcmp(argv[1], "compare") == 0) return compare_places();
  if (argc > 1 && strcmp(argv[1], "primary") == 0) return compare_primary();
  fprintf(stderr, "usage: places usage N | compare | primary\n");
  return 2;
}
