/* A program written against DLB, as DLB's own examples are: it includes
 * DLB's header names, uses DLB_MAX_CPUS and bool, monitoring regions, DROM,
 * a barrier between two processes and the subprocess API, and knows nothing
 * of joule. dlb_example_test.cpp compiles it with cc against the build
 * tree's headers, links it to libjoule and runs it. Exit 0: every check
 * held; the first failed check is printed. */
#include <dlb.h>
#include <dlb_drom.h>
#include <dlb_sp.h>
#include <dlb_talp.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static bool check(bool ok, const char *what) {
  if (!ok) fprintf(stderr, "dlb_example[%d]: failed: %s\n", (int)getpid(), what);
  return ok;
}
/* A failed check leaves DLB first, so that the other process is not left
 * waiting in a barrier for this one. */
#define CHECK(c)            \
  do {                      \
    if (!check((c), #c)) {  \
      (void)DLB_Finalize(); \
      return 1;             \
    }                       \
  } while (0)

static volatile double sink;

static int work(dlb_monitor_t *region) {
  CHECK(DLB_MonitoringRegionStart(region) == DLB_SUCCESS);
  for (int i = 0; i < 2000000; ++i) sink = sink + i * 0.5;
  CHECK(DLB_MonitoringRegionStop(region) == DLB_SUCCESS);
  return 0;
}

/* One of the two processes: owns `cpu`, meets the other in the barrier. */
static int run(int cpu, int ready_fd, int go_fd) {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  CPU_SET(cpu, &mask);
  CHECK(DLB_Init(0, &mask, NULL) == DLB_SUCCESS);
  char c = 'r';
  CHECK(write(ready_fd, &c, 1) == 1);
  CHECK(read(go_fd, &c, 1) == 1); /* both initialised: both in the barrier */

  dlb_monitor_t *region = DLB_MonitoringRegionRegister("compute");
  CHECK(region != NULL);
  CHECK(work(region) == 0);
  CHECK(DLB_Barrier() == DLB_SUCCESS);
  CHECK(region->num_measurements == 1);
  CHECK(region->elapsed_time > 0 && region->useful_time > 0);
  CHECK(region->useful_time <= region->elapsed_time * (int64_t)region->num_cpus);
  dlb_pop_metrics_t pop;
  CHECK(DLB_TALP_CollectPOPMetrics(region, &pop) == DLB_SUCCESS);
  CHECK(pop.parallel_efficiency > 0.0f);

  int ncpus = 0;
  CHECK(DLB_DROM_GetNumCpus(&ncpus) == DLB_SUCCESS && ncpus >= 2);
  CHECK(DLB_AcquireCpus(DLB_MAX_CPUS) >= 0);
  CHECK(DLB_Return() >= 0 || true);
  CHECK(DLB_Barrier() == DLB_SUCCESS);
  CHECK(DLB_Finalize() == DLB_SUCCESS);
  return 0;
}

int main(void) {
  int major = 0, minor = 0, patch = 0;
  CHECK(DLB_GetVersion(&major, &minor, &patch) == DLB_SUCCESS && major == 3);
  dlb_handler_t sp = DLB_Init_sp(0, NULL, NULL); /* a subprocess that owns no CPU */
  CHECK(sp != NULL && DLB_Lend_sp(NULL) == DLB_ERR_NOINIT && DLB_Finalize_sp(sp) == DLB_SUCCESS);
  char value[256];
  CHECK(DLB_GetVariable("--no-such-option", value) == DLB_ERR_NOENT);

  int ready[2], go[2];
  CHECK(pipe(ready) == 0 && pipe(go) == 0);
  fflush(NULL);
  pid_t child = fork();
  if (child == 0) _exit(run(1, ready[1], go[0]));
  if (fork() == 0) { /* the coordinator: lets both go once both are in */
    char c;
    if (read(ready[0], &c, 1) != 1 || read(ready[0], &c, 1) != 1) _exit(1);
    if (write(go[1], "gg", 2) != 2) _exit(1);
    _exit(0);
  }
  const int rc = run(0, ready[1], go[0]);
  int status = 0, coordinator = 0;
  CHECK(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK(wait(&coordinator) > 0 && WIFEXITED(coordinator) && WEXITSTATUS(coordinator) == 0);
  if (rc == 0) printf("dlb_example: ok\n");
  return rc;
}
