/* Task semantics a validation suite checks (OpenMP 5.2 §12.5, §12.6):
 * - final: a final task may be deferred, but every task it creates, at any
 *   depth, is final and included: it runs at once on the encountering
 *   thread, before the construct returns; omp_in_final() is true in all of
 *   them, false in a task that is not final; dependences of included tasks
 *   are ignored, and they run in creation order; taskloop final(1).
 * - if(0): the encountering thread runs the task itself (same OS thread,
 *   same omp_get_thread_num()) and continues only once it has finished; with
 *   depend clauses it first waits for its predecessors (deferred, on other
 *   threads), then runs on the encountering thread.
 * - mergeable, untied and priority are accepted with the right results;
 *   omp_get_max_task_priority() answers OMP_MAX_TASK_PRIORITY (the tests
 *   set 5).
 * Prints only what a conforming runtime cannot change (compared with
 * libgomp) and checks it. */
#define _GNU_SOURCE
#include <omp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

static long tid(void) { return (long)syscall(SYS_gettid); }

/* Returns the number of tasks below `depth` that ran included and final. */
static int descend(int depth, long thread) {
  if (depth == 0) return 0;
  int below = 0, here = 0;
#pragma omp task shared(below, here) firstprivate(depth, thread)
  {
    here = omp_in_final() && tid() == thread;
    below = descend(depth - 1, thread);
  }
  /* Included: done before the construct returned, without a taskwait. */
  return here + below;
}

static void final_deferred(void) {
  int outer_final = -1, included = -1, not_final = -1;
#pragma omp task final(1) shared(outer_final, included)
  {
    outer_final = omp_in_final();
    included = descend(6, tid());
  }
#pragma omp task shared(not_final)
  not_final = omp_in_final();
#pragma omp taskwait
  printf("final: in_final %d, included and final below it %d of 6, other task %d\n", outer_final,
         included, not_final);
  CHECK(outer_final == 1 && included == 6 && not_final == 0);
}

/* Included tasks with dependences that would invert their order if honoured
 * as deferred tasks: they run in creation order anyway. */
static void final_depend(void) {
  int order[4], n = 0, x = 0;
#pragma omp task final(1) shared(order, n, x)
  {
#pragma omp task depend(in : x) shared(order, n)
    order[n++] = 1;
#pragma omp task depend(out : x) shared(order, n)
    order[n++] = 2;
#pragma omp task depend(inout : x) shared(order, n)
    order[n++] = 3;
    order[n++] = 4;
  }
#pragma omp taskwait
  printf("final depend: %d %d %d %d\n", order[0], order[1], order[2], order[3]);
  CHECK(n == 4 && order[0] == 1 && order[1] == 2 && order[2] == 3 && order[3] == 4);
}

static void final_taskloop(void) {
  int finals = 0, nested = 0;
#pragma omp taskloop final(1) grainsize(4) shared(finals, nested)
  for (int i = 0; i < 64; ++i) {
    int inner = 0;
#pragma omp task shared(inner)
    inner = omp_in_final();
    /* included: set already */
#pragma omp atomic
    finals += omp_in_final();
#pragma omp atomic
    nested += inner;
  }
  printf("taskloop final: %d of 64 in final, %d nested included\n", finals, nested);
  CHECK(finals == 64 && nested == 64);
}

static void undeferred(void) {
  int same = 1, done_before = 1;
  for (int i = 0; i < 100; ++i) {
    const long me = tid();
    const int num = omp_get_thread_num();
    int ran = 0;
#pragma omp task if (0) shared(same, ran) firstprivate(me, num)
    {
      same &= tid() == me && omp_get_thread_num() == num && !omp_in_final();
      ran = 1;
    }
    done_before &= ran;
  }
  printf("if(0): on the encountering thread %d, finished before it went on %d\n", same,
         done_before);
  CHECK(same && done_before);
}

/* The predecessor is deferred and slow; the if(0) task must wait for it and
 * still run on the encountering thread. */
static void undeferred_depend(void) {
  int ok = 1;
  for (int i = 0; i < 20; ++i) {
    long x = 0, seen = -1, where = -1;
    const long me = tid();
#pragma omp task depend(out : x) shared(x)
    {
      volatile long spin = 0;
      while (spin < 200000) ++spin;
      x = 42;
    }
#pragma omp task if (0) depend(in : x) shared(x, seen, where)
    {
      seen = x;
      where = tid();
    }
    ok &= seen == 42 && where == me;
#pragma omp taskwait
  }
  printf("if(0) depend: after its predecessor, on the encountering thread %d\n", ok);
  CHECK(ok);
}

static void clauses(void) {
  int sum = 0, prio = omp_get_max_task_priority();
  for (int i = 1; i <= 100; ++i) {
    int x = i;
#pragma omp task mergeable firstprivate(x) shared(sum)
    {
#pragma omp atomic
      sum += x;
    }
#pragma omp task untied priority(i % 7) firstprivate(x) shared(sum)
    {
#pragma omp atomic
      sum += x;
    }
  }
#pragma omp taskwait
  printf("mergeable, untied, priority: sum %d, max priority %d\n", sum, prio);
  CHECK(sum == 10100);
}

int main(void) {
  final_deferred();
  final_depend();
  final_taskloop();
  undeferred();
#pragma omp parallel
#pragma omp single
  {
    final_deferred();
    final_depend();
    final_taskloop();
    undeferred();
    undeferred_depend();
    clauses();
  }
  int all = 1;
#pragma omp parallel reduction(&& : all)
  {
    const long me = tid();
    int here = 0;
#pragma omp task if (0) shared(here)
    here = tid() == me;
    all = here;
  }
  printf("if(0) in every member: %d\n", all);
  CHECK(all);
  return finish("task_semantics");
}
