// Tasks with dependencies and libjoule-omp's creator throttle
// (api/adapters/omp/task_throttle.cpp), built by g++ (GOMP_task) and by
// clang++ (__kmpc_omp_task_with_deps), both linked against libjoule-omp:
//
//  - once the throttle runs the creator's new tasks at once (many deferred
//    tasks waiting), a task with depend is still deferred: joule defers
//    every task with dependencies unless it is included (OpenMP lets a
//    runtime run any task at once; joule's rule keeps a graph's creator
//    from running it one task at a time);
//  - such tasks leave the throttle's budget alone: the creator's next
//    tasks without dependencies still run at once (the throttle grants at
//    least 15 before it reads the counts again).
//
// A task knows it runs at once, inside its creating construct, when its
// thread's t_creating is its own number: the creator sets it just before
// the construct and clears it just after, so a deferred task sees another
// value wherever and whenever it runs. Nothing here depends on timing.
// Run with JOULE_SERIAL_INLINE=0: with one worker joule otherwise runs
// every task at once by design (docs/internals-tasks.md, "Serial inline
// mode"), and the throttle is never asked.
#include <omp.h>
#include <sched.h>

#include <atomic>

#include "check.h"

namespace {

thread_local long t_creating = 0;  // the number of the task this thread is creating

constexpr long kMaxFillers = 100000;
constexpr long kDependent = 24;   // more than the inline budget the throttle grants (15)
constexpr long kIndependent = 8;  // fewer than that budget

std::atomic<int> g_go{0};
std::atomic<long> g_filler_at_once{0};  // the last filler run at once

// Tasks without dependencies until the throttle runs one at once. Those
// other threads start wait for g_go: the creator's queue fills.
long fill_until_inline(long next) {
  for (long id = next; id < next + kMaxFillers; ++id) {
    t_creating = id;
#pragma omp task firstprivate(id)
    {
      if (t_creating == id) g_filler_at_once.store(id);
      while (t_creating == 0 && !g_go.load()) sched_yield();
    }
    t_creating = 0;
    if (g_filler_at_once.load() == id) return id + 1;
  }
  CHECK(!"the throttle never ran a task at once");
  return next + kMaxFillers;
}

// kDependent tasks in a chain, then kIndependent tasks without
// dependencies; counts those run at once.
void dependent_then_independent(long next, long* dependent_at_once, long* independent_at_once) {
  int chain = 0;
  std::atomic<long> dep_now{0}, indep_now{0};
  for (long k = 0; k < kDependent; ++k) {
    const long id = next++;
    t_creating = id;
#pragma omp task firstprivate(id) shared(dep_now) depend(inout : chain)
    {
      if (t_creating == id) dep_now.fetch_add(1);
    }
    t_creating = 0;
  }
  for (long k = 0; k < kIndependent; ++k) {
    const long id = next++;
    t_creating = id;
#pragma omp task firstprivate(id) shared(indep_now)
    {
      if (t_creating == id) indep_now.fetch_add(1);
    }
    t_creating = 0;
  }
#pragma omp taskwait
  *dependent_at_once = dep_now.load();
  *independent_at_once = indep_now.load();
}

void check_deferral() {
  long dependent_at_once = -1, independent_at_once = -1;
  g_go.store(0);
  g_filler_at_once.store(0);
#pragma omp parallel
#pragma omp single
  {
    const long next = fill_until_inline(1);
    // The queue drains; the creator's inline budget stays.
    g_go.store(1);
#pragma omp taskwait
    dependent_then_independent(next, &dependent_at_once, &independent_at_once);
  }
  CHECK(dependent_at_once == 0);
  CHECK(independent_at_once == kIndependent);
  if (dependent_at_once != 0 || independent_at_once != kIndependent)
    fprintf(stderr, "%d threads: %ld of %ld dependent tasks at once, %ld of %ld independent\n",
            omp_get_max_threads(), dependent_at_once, kDependent, independent_at_once,
            kIndependent);
}

}  // namespace

int main() {
  for (int round = 0; round < 3; ++round) check_deferral();
  return finish("task_deferral");
}
