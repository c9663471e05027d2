// The Nanos++ thread queries (<joule/nanos6/nanos_omp.h>): OmpSs's one team
// is joule's workers, whose count is fixed at start.
#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "joule/joule.h"
#include "joule/nanos6/nanos_omp.h"

extern "C" {

int nanos_omp_get_num_threads(void) { return joule_num_workers(); }
int nanos_omp_get_max_threads(void) { return joule_num_workers(); }

int nanos_omp_get_thread_num(void) {
  const int w = joule_worker_id();
  return w < 0 ? 0 : w;
}

void nanos_omp_set_num_threads(int nthreads) {
  if (nthreads < 1) {
    std::fprintf(stderr, "joule: nanos_omp_set_num_threads(%d): the count must be at least 1\n",
                 nthreads);
    std::abort();
  }
  const int workers = joule_num_workers();
  static std::atomic<bool> warned{false};
  if (nthreads != workers && !warned.exchange(true))
    std::fprintf(stderr,
                 "joule: warning: nanos_omp_set_num_threads(%d): the worker count is fixed at "
                 "start (JOULE_WORKERS); the program keeps its %d workers\n",
                 nthreads, workers);
}

}  // extern "C"
