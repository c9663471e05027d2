/* DLB's "DROM" kind: an administrator process moves CPUs between running
 * processes. Target 0 starts owning CPUs 0 and 1, target 1 owns none; both
 * poll DLB_PollDROM as a runtime would at its task boundaries. The
 * administrator (DLB_DROM_Attach) shrinks target 0 to CPU 0, gives CPU 1
 * to target 1, and with a fourth process, an observer, the node's view is
 * checked from outside too. With two processes, the administrator shrinks
 * the one target and gives the CPU back to it.
 *
 *   drom PROCESSES     (2: a target and the administrator; 3: two targets
 *                       and the administrator; 4: and an observer)
 *
 * Checks: the administrator sees both targets in DLB_DROM_GetPidList and
 * their masks in DLB_DROM_GetProcessMask before and after; each target's
 * DLB_PollDROM reports exactly its new mask, once; the observer reads the
 * final masks. Exit 0 and "drom: ok" when all held. */
#include <dlb.h>
#include <dlb_drom.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct Shared {
  atomic_int pid[2];     /* the targets' pids once initialised */
  atomic_int polled[2];  /* masks each target received (bit per CPU), -1 none yet */
  atomic_int moves_done; /* the administrator finished */
  atomic_int observed;   /* the observer finished */
  atomic_int errors;
};
static struct Shared *shared;
static int targets = 2;

#define CHECK(c)                                                                        \
  do {                                                                                  \
    if (!(c)) {                                                                         \
      fprintf(stderr, "drom[%d]: failed: %s (line %d)\n", (int)getpid(), #c, __LINE__); \
      atomic_fetch_add(&shared->errors, 1);                                             \
      return 1;                                                                         \
    }                                                                                   \
  } while (0)

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int bits(const cpu_set_t *m) {
  int b = 0;
  for (int c = 0; c < 2; ++c)
    if (CPU_ISSET(c, m)) b |= 1 << c;
  return b;
}

static int target(int me) {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (me == 0) CPU_SET(0, &mask), CPU_SET(1, &mask);
  CHECK(DLB_Init(0, &mask, "--drom") == DLB_SUCCESS);
  atomic_store(&shared->pid[me], (int)getpid());
  const double until = now_s() + 60.0;
  int updates = 0;
  while (atomic_load(&shared->moves_done) == 0 && now_s() < until) {
    int ncpus = 0;
    cpu_set_t now;
    CPU_ZERO(&now);
    const int rc = DLB_PollDROM(&ncpus, &now); /* a runtime's task boundary */
    if (rc == DLB_SUCCESS) {
      CHECK(ncpus == CPU_COUNT(&now));
      atomic_store(&shared->polled[me], bits(&now));
      ++updates;
    } else {
      CHECK(rc == DLB_NOUPDT);
    }
    usleep(1000);
  }
  CHECK(atomic_load(&shared->moves_done) == 1);
  /* One change each (target 0 shrank, target 1 grew); alone, target 0
   * shrank and grew back. */
  CHECK(updates == (targets == 1 ? 2 : 1));
  while (atomic_load(&shared->observed) == 0 && now_s() < until) usleep(1000);
  CHECK(DLB_Finalize() == DLB_SUCCESS);
  return 0;
}

static int mask_of(int pid) {
  cpu_set_t m;
  CPU_ZERO(&m);
  return DLB_DROM_GetProcessMask(pid, &m, DLB_DROM_FLAGS_NONE) == DLB_SUCCESS ? bits(&m) : -1;
}

/* Waits up to 10 s for *v == want (a target stores what it polled just
 * after DLB_PollDROM returned, which is when a sync query returns). */
static int reaches(atomic_int *v, int want) {
  const double until = now_s() + 10.0;
  while (atomic_load(v) != want && now_s() < until) usleep(500);
  return atomic_load(v) == want;
}

/* Sets pid's mask to the CPUs of `bits` and waits until target `t` polled it. */
static int move(int t, int pid, int bits) {
  cpu_set_t m;
  CPU_ZERO(&m);
  for (int c = 0; c < 2; ++c)
    if (bits & (1 << c)) CPU_SET(c, &m);
  CHECK(DLB_DROM_SetProcessMask(pid, &m, DLB_SYNC_QUERY) == DLB_SUCCESS); /* applied */
  CHECK(reaches(&shared->polled[t], bits));
  return 0;
}

static int admin(void) {
  for (int t = 0; t < targets; ++t)
    while (atomic_load(&shared->pid[t]) == 0) usleep(1000);
  CHECK(DLB_DROM_Attach() == DLB_SUCCESS);
  int pids[16], n = 0;
  CHECK(DLB_DROM_GetPidList(pids, &n, 16) == DLB_SUCCESS);
  int seen = 0;
  for (int i = 0; i < n; ++i)
    for (int t = 0; t < targets; ++t) seen += pids[i] == atomic_load(&shared->pid[t]);
  CHECK(seen == targets);
  const int t0 = atomic_load(&shared->pid[0]), t1 = atomic_load(&shared->pid[1]);
  CHECK(mask_of(t0) == 3);
  CHECK(move(0, t0, 1) == 0); /* target 0 shrinks to CPU 0 */
  if (targets == 1) {
    CHECK(move(0, t0, 3) == 0); /* and gets CPU 1 back */
    CHECK(mask_of(t0) == 3);
  } else {
    CHECK(mask_of(t1) == 0);
    CHECK(move(1, t1, 2) == 0); /* CPU 1 goes to target 1 */
    CHECK(mask_of(t0) == 1 && mask_of(t1) == 2);
  }
  atomic_store(&shared->moves_done, 1);
  CHECK(DLB_DROM_Detach() == DLB_SUCCESS);
  return 0;
}

static int observe(void) {
  while (atomic_load(&shared->moves_done) == 0) usleep(1000);
  CHECK(DLB_DROM_Attach() == DLB_SUCCESS);
  CHECK(mask_of(atomic_load(&shared->pid[0])) == 1);
  CHECK(mask_of(atomic_load(&shared->pid[1])) == 2);
  CHECK(DLB_DROM_Detach() == DLB_SUCCESS);
  return 0;
}

/* The targets stay until the observer has read their masks. */
static int observer(void) {
  const int rc = observe();
  atomic_store(&shared->observed, 1);
  return rc;
}

int main(int argc, char **argv) {
  const int procs = argc > 1 ? atoi(argv[1]) : 3;
  if (procs < 2 || procs > 4) {
    fprintf(stderr, "usage: drom PROCESSES (2, 3 or 4)\n");
    return 2;
  }
  targets = procs == 2 ? 1 : 2;
  shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) return 1;
  atomic_store(&shared->polled[0], -1);
  atomic_store(&shared->polled[1], -1);
  fflush(NULL);
  pid_t kids[3];
  kids[0] = fork();
  if (kids[0] == 0) _exit(target(0));
  int nkids = 1;
  if (targets == 2 && (kids[nkids++] = fork()) == 0) _exit(target(1));
  if (procs == 4 && (kids[nkids++] = fork()) == 0) _exit(observer());
  int failed = admin();
  if (failed) atomic_store(&shared->moves_done, 2); /* the targets stop waiting */
  if (procs < 4) atomic_store(&shared->observed, 1);
  for (int i = 0; i < nkids; ++i) {
    int status = 0;
    if (waitpid(kids[i], &status, 0) != kids[i] || !WIFEXITED(status) || WEXITSTATUS(status))
      failed = 1;
  }
  if (failed || atomic_load(&shared->errors)) return 1;
  printf("drom: ok (%d processes)\n", procs);
  return 0;
}
