/* DLB's "node barrier" kind: N processes on one node meet in DLB_Barrier
 * for several rounds. Each process writes its round number to shared
 * memory before the barrier and checks after it that every process has
 * reached the same round: no process may leave round r before all entered
 * it, and none may be more than one round ahead.
 *
 *   node_barrier PROCESSES ROUNDS
 *
 * Exit 0 and "node_barrier: ok" when every check held. */
#include <dlb.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kMaxProcs = 8 };

struct Shared {
  atomic_int attached;         /* processes past DLB_Init */
  atomic_int round[kMaxProcs]; /* the round each process entered */
  atomic_int errors;
};
static struct Shared *shared;

static int member(int me, int procs, int rounds) {
  cpu_set_t none;
  CPU_ZERO(&none);
  if (DLB_Init(0, &none, "--barrier") != DLB_SUCCESS) return 1;
  /* The barrier counts the processes attached when it is reached (as
   * DLB's): start once all are, as an MPI program would after MPI_Init. */
  atomic_fetch_add(&shared->attached, 1);
  while (atomic_load(&shared->attached) < procs) usleep(1000);
  for (int r = 1; r <= rounds; ++r) {
    if (r % 2 == me % 2) usleep(2000 * (unsigned)(me + 1)); /* arrive in varying orders */
    atomic_store(&shared->round[me], r);
    if (DLB_Barrier() != DLB_SUCCESS) {
      fprintf(stderr, "node_barrier[%d]: DLB_Barrier failed in round %d\n", me, r);
      atomic_fetch_add(&shared->errors, 1);
      break;
    }
    for (int p = 0; p < procs; ++p) {
      const int seen = atomic_load(&shared->round[p]);
      if (seen < r || seen > r + 1) {
        fprintf(stderr, "node_barrier[%d]: left round %d while process %d was in round %d\n", me, r,
                p, seen);
        atomic_fetch_add(&shared->errors, 1);
      }
    }
  }
  return DLB_Finalize() == DLB_SUCCESS ? 0 : 1;
}

int main(int argc, char **argv) {
  const int procs = argc > 1 ? atoi(argv[1]) : 2;
  const int rounds = argc > 2 ? atoi(argv[2]) : 5;
  if (procs < 2 || procs > kMaxProcs || rounds < 1) {
    fprintf(stderr, "usage: node_barrier PROCESSES (2..%d) ROUNDS (1..)\n", kMaxProcs);
    return 2;
  }
  shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) return 1;
  fflush(NULL);
  pid_t pids[kMaxProcs];
  for (int i = 0; i < procs; ++i)
    if ((pids[i] = fork()) == 0) _exit(member(i, procs, rounds));
  int failed = 0;
  for (int i = 0; i < procs; ++i) {
    int status = 0;
    if (waitpid(pids[i], &status, 0) != pids[i] || !WIFEXITED(status) || WEXITSTATUS(status))
      failed = 1;
  }
  if (failed || atomic_load(&shared->errors)) return 1;
  printf("node_barrier: ok (%d processes, %d rounds)\n", procs, rounds);
  return 0;
}
