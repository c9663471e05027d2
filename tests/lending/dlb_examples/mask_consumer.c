/* DLB's "LeWI mask consumer" kind, written against DLB's API alone: owner
 * processes each own one CPU and lend it; consumer processes own none,
 * start in async mode, ask once for every CPU they can get
 * (DLB_AcquireCpus(DLB_MAX_CPUS)) and then only receive callbacks. The
 * owners reclaim their CPUs and must get each back after its consumer was
 * told to stop using it.
 *
 *   mask_consumer OWNERS CONSUMERS     (owner i owns CPU i)
 *
 * Checks, from what each process records in shared memory: every lent CPU
 * reached exactly one consumer through enable_cpu_set / enable_cpu, was
 * taken away from the same consumer through disable_cpu_set / disable_cpu
 * before its owner ran on it again, no CPU was held by two consumers at
 * once, and nothing is held at the end. Exit 0 and "mask_consumer: ok"
 * when all held; otherwise the first failed check. */
#include <dlb.h>

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { kMaxProcs = 8, kMaxCpus = 64 };

struct Shared {
  atomic_int consumers_ready;
  atomic_int owners_lent;       /* owners whose CPU some consumer holds */
  atomic_int done;              /* the owners finished: consumers may leave */
  atomic_int holder[kMaxCpus];  /* consumer index + 1 holding the CPU, 0 none */
  atomic_int enabled[kMaxCpus]; /* times the CPU was enabled / disabled */
  atomic_int disabled[kMaxCpus];
  atomic_int set_calls, cpu_calls;
  atomic_int errors;
};
static struct Shared *shared;

static void fail(const char *what, int cpu) {
  fprintf(stderr, "mask_consumer[%d]: failed: %s (CPU %d)\n", (int)getpid(), what, cpu);
  atomic_fetch_add(&shared->errors, 1);
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Waits until *flag >= want, up to 30 s; 0 when reached. */
static int wait_for(atomic_int *flag, int want, const char *what) {
  const double until = now_s() + 30.0;
  while (atomic_load(flag) < want) {
    if (now_s() > until) {
      fail(what, -1);
      return 1;
    }
    usleep(1000);
  }
  return 0;
}

static void gain(int me, int cpu) {
  int none = 0;
  if (!atomic_compare_exchange_strong(&shared->holder[cpu], &none, me + 1))
    fail("enabled while another consumer holds it", cpu);
  atomic_fetch_add(&shared->enabled[cpu], 1);
}

static void lose(int me, int cpu) {
  int mine = me + 1;
  if (!atomic_compare_exchange_strong(&shared->holder[cpu], &mine, 0))
    fail("disabled on a consumer that does not hold it", cpu);
  atomic_fetch_add(&shared->disabled[cpu], 1);
}

static void on_enable_set(const cpu_set_t *mask, void *arg) {
  atomic_fetch_add(&shared->set_calls, 1);
  for (int c = 0; c < kMaxCpus; ++c)
    if (CPU_ISSET(c, mask)) gain((int)(long)arg, c);
}
static void on_disable_set(const cpu_set_t *mask, void *arg) {
  atomic_fetch_add(&shared->set_calls, 1);
  for (int c = 0; c < kMaxCpus; ++c)
    if (CPU_ISSET(c, mask)) lose((int)(long)arg, c);
}
static void on_enable(int cpu, void *arg) {
  atomic_fetch_add(&shared->cpu_calls, 1);
  gain((int)(long)arg, cpu);
}
static void on_disable(int cpu, void *arg) {
  atomic_fetch_add(&shared->cpu_calls, 1);
  lose((int)(long)arg, cpu);
}

static int consumer(int me) {
  cpu_set_t none;
  CPU_ZERO(&none);
  if (DLB_Init(0, &none, "--mode=async --lewi") != DLB_SUCCESS) return fail("DLB_Init", -1), 1;
  void *arg = (void *)(long)me;
  if (DLB_CallbackSet(dlb_callback_enable_cpu, (dlb_callback_t)on_enable, arg) != DLB_SUCCESS ||
      DLB_CallbackSet(dlb_callback_enable_cpu_set, (dlb_callback_t)on_enable_set, arg) !=
          DLB_SUCCESS ||
      DLB_CallbackSet(dlb_callback_disable_cpu, (dlb_callback_t)on_disable, arg) != DLB_SUCCESS ||
      DLB_CallbackSet(dlb_callback_disable_cpu_set, (dlb_callback_t)on_disable_set, arg) !=
          DLB_SUCCESS)
    return fail("DLB_CallbackSet", -1), 1;
  const int rc = DLB_AcquireCpus(DLB_MAX_CPUS); /* nothing lent yet: the request stands */
  if (rc != DLB_NOTED) fprintf(stderr, "mask_consumer: DLB_AcquireCpus answered %d\n", rc);
  atomic_fetch_add(&shared->consumers_ready, 1);
  int err = wait_for(&shared->done, 1, "owners never finished");
  if (DLB_Finalize() != DLB_SUCCESS) err = 1;
  return err;
}

static int owner(int cpu, int owners, int consumers) {
  cpu_set_t mine;
  CPU_ZERO(&mine);
  CPU_SET(cpu, &mine);
  if (DLB_Init(0, &mine, NULL) != DLB_SUCCESS) return fail("DLB_Init", cpu), 1;
  if (wait_for(&shared->consumers_ready, consumers, "consumers never ready")) return 1;
  if (DLB_Lend() != DLB_SUCCESS) return fail("DLB_Lend", cpu), 1;
  const double until = now_s() + 30.0;
  while (atomic_load(&shared->holder[cpu]) == 0 && now_s() < until) usleep(1000);
  if (atomic_load(&shared->holder[cpu]) == 0) return fail("no consumer got the lent CPU", cpu), 1;
  atomic_fetch_add(&shared->owners_lent, 1);
  /* Every owner's CPU is out before any reclaims: the consumers hold them all. */
  if (wait_for(&shared->owners_lent, owners, "not every lent CPU reached a consumer")) return 1;
  const int rc = DLB_Reclaim(); /* borrowed: noted, back once the consumer let it go */
  if (rc != DLB_NOTED && rc != DLB_SUCCESS) return fail("DLB_Reclaim", cpu), 1;
  while (DLB_CheckCpuAvailability(cpu) != DLB_SUCCESS && now_s() < until + 30.0) usleep(1000);
  if (DLB_CheckCpuAvailability(cpu) != DLB_SUCCESS) return fail("never got its CPU back", cpu), 1;
  if (atomic_load(&shared->holder[cpu]) != 0)
    return fail("running on a CPU a consumer still holds", cpu), 1;
  return DLB_Finalize() == DLB_SUCCESS ? 0 : 1;
}

int main(int argc, char **argv) {
  const int owners = argc > 1 ? atoi(argv[1]) : 1;
  const int consumers = argc > 2 ? atoi(argv[2]) : 1;
  if (owners < 1 || consumers < 1 || owners + consumers > kMaxProcs) {
    fprintf(stderr, "usage: mask_consumer OWNERS CONSUMERS (1.., together at most %d)\n",
            kMaxProcs);
    return 2;
  }
  shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) return 1;
  fflush(NULL);
  pid_t pids[kMaxProcs];
  for (int i = 0; i < consumers; ++i)
    if ((pids[i] = fork()) == 0) _exit(consumer(i));
  for (int i = 0; i < owners; ++i)
    if ((pids[consumers + i] = fork()) == 0) _exit(owner(i, owners, consumers));
  int failed = 0;
  for (int i = consumers; i < consumers + owners; ++i) {
    int status = 0;
    if (waitpid(pids[i], &status, 0) != pids[i] || !WIFEXITED(status) || WEXITSTATUS(status))
      failed = 1;
  }
  atomic_store(&shared->done, 1);
  for (int i = 0; i < consumers; ++i) {
    int status = 0;
    if (waitpid(pids[i], &status, 0) != pids[i] || !WIFEXITED(status) || WEXITSTATUS(status))
      failed = 1;
  }
  for (int c = 0; c < owners; ++c) {
    if (atomic_load(&shared->enabled[c]) != 1 || atomic_load(&shared->disabled[c]) != 1) {
      fprintf(stderr, "mask_consumer: CPU %d enabled %d and disabled %d times, want 1 and 1\n", c,
              atomic_load(&shared->enabled[c]), atomic_load(&shared->disabled[c]));
      failed = 1;
    }
    if (atomic_load(&shared->holder[c]) != 0) fail("still held at the end", c), failed = 1;
  }
  if (failed || atomic_load(&shared->errors)) return 1;
  printf("mask_consumer: ok (%d owners, %d consumers; %d set callbacks, %d per-CPU)\n", owners,
         consumers, atomic_load(&shared->set_calls), atomic_load(&shared->cpu_calls));
  return 0;
}
