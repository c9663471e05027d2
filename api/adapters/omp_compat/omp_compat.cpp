// The omp_* queries OmpSs programs call (as they did with Nanos++), answered
// by joule (declared in <joule/omp/omp.h>; the locks are in omp_locks.cpp). A separate library so
// that code built with -fopenmp keeps libgomp's or libomp's own definitions.
#include <sched.h>
#include <time.h>

#include "joule/joule.h"
#include "joule/omp/omp.h"

extern "C" {

JOULE_EXPORT double omp_get_wtime(void) {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

JOULE_EXPORT double omp_get_wtick(void) {
  timespec ts;
  clock_getres(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The worker running the caller; 0 outside workers (like the initial thread).
JOULE_EXPORT int omp_get_thread_num(void) {
  int w = joule_worker_id();
  return w < 0 ? 0 : w;
}

JOULE_EXPORT int omp_get_num_threads(void) { return joule_num_workers(); }
JOULE_EXPORT int omp_get_max_threads(void) { return joule_num_workers(); }

JOULE_EXPORT int omp_get_num_procs(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  return CPU_COUNT(&set);
}

// Tasks run on the workers: as OmpSs, the whole program is one parallel region.
JOULE_EXPORT int omp_in_parallel(void) { return joule_num_workers() > 1; }
JOULE_EXPORT int omp_in_final(void) { return joule_in_final(); }

JOULE_EXPORT int omp_get_thread_limit(void) { return joule_num_workers(); }

// The whole program is one parallel region (active when it has 2 workers or more).
JOULE_EXPORT int omp_get_level(void) { return 1; }
JOULE_EXPORT int omp_get_active_level(void) { return omp_in_parallel(); }

// The worker count is fixed at start (JOULE_WORKERS); accepted and ignored.
JOULE_EXPORT void omp_set_num_threads(int) {}
JOULE_EXPORT void omp_set_dynamic(int) {}
JOULE_EXPORT int omp_get_dynamic(void) { return 0; }
JOULE_EXPORT void omp_set_nested(int) {}
JOULE_EXPORT int omp_get_nested(void) { return 0; }

}  // extern "C"
