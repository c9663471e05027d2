/* A task program for Archer (ThreadSanitizer with the OpenMP
 * happens-before edges an OMPT runtime reports: ompt.cmake). Its accesses
 * are made on different threads on purpose: a task sets a relaxed flag
 * (no synchronisation for TSan) that its creator spins on, so the creator
 * cannot have run it. Without RACE every conflicting pair is ordered by
 * the runtime alone: a taskwait, a dependence, a barrier, a critical
 * section, a lock; TSan sees those orders only through the OMPT events.
 * With RACE, the creator writes a variable its task wrote without the
 * taskwait: TSan must report a data race. */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Until *flag is set (by a task on another thread), at most 5 s. */
static int await(atomic_int* flag) {
  const double end = now() + 5.0;
  while (!atomic_load_explicit(flag, memory_order_relaxed))
    if (now() > end) return 0;
  return 1;
}

int main(void) {
  int x = 0, y = 0, z = 0, in_critical = 0, in_lock = 0, elsewhere = 0;
  atomic_int x_done = 0, y_done = 0;
  omp_lock_t lock;
  omp_init_lock(&lock);
#pragma omp parallel num_threads(2) shared(x, y, z, in_critical, in_lock, elsewhere)
  {
#pragma omp single
    {
#pragma omp task shared(x, x_done)
      {
        x = 1;
        atomic_store_explicit(&x_done, 1, memory_order_relaxed);
      }
      elsewhere += await(&x_done);
#ifndef RACE
#pragma omp taskwait
#endif
      x += 1; /* after the task's write: ordered only by the taskwait */
#pragma omp task shared(y, y_done) depend(out : y)
      {
        y = 10;
        atomic_store_explicit(&y_done, 1, memory_order_relaxed);
      }
      elsewhere += await(&y_done);
#pragma omp task shared(y) depend(inout : y)
      y += 1; /* after the first: ordered only by the dependence */
#pragma omp taskwait
    }
    if (omp_get_thread_num() == 0) z = 3;
#pragma omp barrier
    if (omp_get_thread_num() == 1) z += 1;
#pragma omp critical
    in_critical += 1;
    omp_set_lock(&lock);
    in_lock += 1;
    omp_unset_lock(&lock);
  }
  omp_destroy_lock(&lock);
  printf("archer_tasks: x=%d y=%d z=%d critical=%d lock=%d on other threads=%d\n", x, y, z,
         in_critical, in_lock, elsewhere);
  return 0;
}
