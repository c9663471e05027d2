/* DLB's "custom runtime on LeWI" kind: runtimes that only know a thread
 * count. Each registers dlb_callback_set_num_threads and calls DLB at its
 * own points (polling mode). Process 0 owns CPU 0 and process 1 CPU 1,
 * each bound to it as mpirun --bind-to core would, and starts DLB without
 * a mask; further processes own no CPU. Process 0 enters a blocking phase
 * (an MPI call) and lends its CPU; the others ask for CPUs at their
 * "parallel regions" (DLB_Borrow); when process 0 leaves the phase it
 * reclaims the CPU, and the borrower's next DLB call shrinks it again.
 *
 *   lewi_custom_rt PROCESSES     (2..4)
 *
 * Checks: exactly one borrower went from its own count to one more and back
 * to its own count, in that order; process 0 runs on its CPU again at the
 * end. Exit 0 and "lewi_custom_rt: ok" when all held. */
#include <dlb.h>

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { kMaxProcs = 4, kMaxEvents = 16 };

struct Shared {
  atomic_int ready;
  atomic_int lent, done;
  atomic_int events[kMaxProcs];             /* callbacks received */
  atomic_int counts[kMaxProcs][kMaxEvents]; /* the thread counts, in order */
};
static struct Shared *shared;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void set_num_threads(int n, void *arg) {
  const int me = (int)(long)arg;
  const int i = atomic_fetch_add(&shared->events[me], 1);
  if (i < kMaxEvents) atomic_store(&shared->counts[me][i], n);
}

static int start(int me, int procs) {
  cpu_set_t none, bound;
  CPU_ZERO(&none);
  CPU_ZERO(&bound);
  int rc;
  if (me < 2) { /* bound to its CPU: DLB_Init takes the affinity mask */
    CPU_SET(me, &bound);
    if (sched_setaffinity(0, sizeof bound, &bound) != 0) return 1;
    rc = DLB_Init(1, NULL, "--lewi");
  } else {
    rc = DLB_Init(0, &none, "--lewi");
  }
  if (rc != DLB_SUCCESS) return 1;
  if (DLB_CallbackSet(dlb_callback_set_num_threads, (dlb_callback_t)set_num_threads,
                      (void *)(long)me) != DLB_SUCCESS)
    return 1;
  atomic_fetch_add(&shared->ready, 1);
  while (atomic_load(&shared->ready) < procs) usleep(1000);
  return 0;
}

static int lender(int procs) {
  if (start(0, procs)) return 1;
  if (DLB_Lend() != DLB_SUCCESS) return 1; /* entering a blocking MPI call */
  atomic_store(&shared->lent, 1);
  const double until = now_s() + 30.0;
  int grown = 0;
  while (!grown && now_s() < until) {
    for (int p = 1; p < procs; ++p) grown |= atomic_load(&shared->events[p]) > 0;
    usleep(1000);
  }
  const int rc = DLB_Reclaim(); /* leaving it */
  while (DLB_CheckCpuAvailability(0) != DLB_SUCCESS && now_s() < until) usleep(1000);
  const int back = DLB_CheckCpuAvailability(0) == DLB_SUCCESS;
  atomic_store(&shared->done, 1);
  DLB_Finalize();
  if (!grown) fprintf(stderr, "lewi_custom_rt: no runtime grew on the lent CPU\n");
  if (rc != DLB_NOTED && rc != DLB_SUCCESS) fprintf(stderr, "lewi_custom_rt: reclaim %d\n", rc);
  if (!back) fprintf(stderr, "lewi_custom_rt: process 0 never got CPU 0 back\n");
  return grown && back ? 0 : 1;
}

static int runtime(int me, int procs) {
  if (start(me, procs)) return 1;
  while (atomic_load(&shared->lent) == 0) usleep(1000);
  while (atomic_load(&shared->done) == 0) {
    DLB_Borrow(); /* a parallel region: as many CPUs as there are */
    usleep(1000);
  }
  DLB_Borrow(); /* one more region after the reclaim */
  return DLB_Finalize() == DLB_SUCCESS ? 0 : 1;
}

int main(int argc, char **argv) {
  const int procs = argc > 1 ? atoi(argv[1]) : 2;
  if (procs < 2 || procs > kMaxProcs) {
    fprintf(stderr, "usage: lewi_custom_rt PROCESSES (2..%d)\n", kMaxProcs);
    return 2;
  }
  shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) return 1;
  fflush(NULL);
  pid_t pids[kMaxProcs];
  for (int p = 0; p < procs; ++p)
    if ((pids[p] = fork()) == 0) _exit(p == 0 ? lender(procs) : runtime(p, procs));
  int failed = 0;
  for (int p = 0; p < procs; ++p) {
    int status = 0;
    if (waitpid(pids[p], &status, 0) != pids[p] || !WIFEXITED(status) || WEXITSTATUS(status))
      failed = 1;
  }
  int borrowers = 0;
  for (int p = 1; p < procs; ++p) {
    const int n = atomic_load(&shared->events[p]);
    if (n == 0) continue;
    ++borrowers;
    const int own = p < 2 ? 1 : 0; /* process 1 owns CPU 1 */
    if (n != 2 || atomic_load(&shared->counts[p][0]) != own + 1 ||
        atomic_load(&shared->counts[p][1]) != own) {
      fprintf(stderr, "lewi_custom_rt: process %d saw %d counts:", p, n);
      for (int i = 0; i < n && i < kMaxEvents; ++i)
        fprintf(stderr, " %d", atomic_load(&shared->counts[p][i]));
      fprintf(stderr, " (want %d %d)\n", own + 1, own);
      failed = 1;
    }
  }
  if (borrowers != 1) fprintf(stderr, "lewi_custom_rt: %d borrowers, want 1\n", borrowers);
  if (failed || borrowers != 1) return 1;
  printf("lewi_custom_rt: ok (%d processes)\n", procs);
  return 0;
}
