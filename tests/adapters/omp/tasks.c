/* Explicit tasks: dependencies (in, out, inout, mutexinoutset, depend
 * objects), if(0), final, priority, taskwait, taskwait with depend,
 * taskgroup, taskloop (grainsize, num_tasks, nogroup), a recursive task
 * code with a cutoff, simple and nested locks, and parallel regions
 * started inside tasks. */
#include <omp.h>
#include <string.h>

#include "check.h"

static long fib_seq(int n) { return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2); }

static long fib(int n) {
  if (n < 2) return n;
  long a = 0, b = 0;
#pragma omp task shared(a) final(n < 12) untied
  a = fib(n - 1);
#pragma omp task shared(b) mergeable
  b = fib(n - 2);
#pragma omp taskwait
  return a + b;
}

static void dependency_checks(void) {
  int x = 0, y = 0, log[8], pos = 0, mutex_sum = 0, set_sum = 0, bad = 0;
#pragma omp parallel
#pragma omp single
  {
#pragma omp task depend(out : x)
    x = 1;
#pragma omp task depend(in : x) depend(out : y)
    y = x + 1;
#pragma omp task depend(inout : y)
    y *= 10;
#pragma omp task depend(in : y) shared(log, pos)
    log[pos++] = y;
    for (int k = 0; k < 8; ++k) {
#pragma omp task depend(mutexinoutset : mutex_sum)
      mutex_sum += k;
    }
#pragma omp task depend(in : mutex_sum) shared(bad)
    bad += mutex_sum != 28;
    /* GCC 12 has no inoutset; concurrent readers then one writer instead */
    for (int k = 0; k < 4; ++k) {
#pragma omp task depend(in : mutex_sum) shared(set_sum)
      {
#pragma omp atomic
        set_sum += 1;
      }
    }
#pragma omp task depend(inout : mutex_sum) shared(bad)
    bad += set_sum != 4;
    omp_depend_t obj;
#pragma omp depobj(obj) depend(inout : x)
#pragma omp task depend(depobj : obj)
    x += 100;
#pragma omp taskwait depend(in : x)
    bad += x != 101;
#pragma omp depobj(obj) destroy
#pragma omp taskwait
  }
  CHECK(x == 101 && y == 20 && pos == 1 && log[0] == 20 && bad == 0);
}

static void wait_checks(void) {
  int done[64], undeferred = 0, outside = 0;
  memset(done, 0, sizeof done);
#pragma omp parallel shared(done)
  {
#pragma omp for
    for (int i = 0; i < 64; ++i) {
#pragma omp task firstprivate(i) priority(i % 4)
      done[i] = 1;
    }
    /* the loop's barrier waited for every task */
    int all = 1;
    for (int i = 0; i < 64; ++i) all &= done[i];
    if (!all) {
#pragma omp atomic
      outside++;
    }
#pragma omp single
    {
      int v = 0;
#pragma omp task if (0) shared(v)
      v = 7;
      undeferred = v;
#pragma omp taskgroup
      {
#pragma omp task
        {
#pragma omp task
          {
#pragma omp atomic
            outside += 1000;
          }
        }
      }
      if (outside != 1000) outside = -1;
    }
  }
  CHECK(outside == 1000 && undeferred == 7);
}

static void taskloop_checks(void) {
  static int hit[5000];
  long sum = 0;
  memset(hit, 0, sizeof hit);
#pragma omp parallel
#pragma omp single
  {
#pragma omp taskloop grainsize(100)
    for (int i = 0; i < 5000; ++i) hit[i]++;
#pragma omp taskloop num_tasks(7)
    for (int i = 4999; i >= 0; i -= 1) hit[i]++;
#pragma omp taskgroup
    {
#pragma omp taskloop nogroup
      for (unsigned long long u = 0; u < 5000; u += 2) hit[u]++;
    }
    for (int i = 0; i < 5000; ++i) {
#pragma omp atomic
      sum += hit[i];
    }
  }
  CHECK(sum == 5000 * 2 + 2500);
}

static void lock_checks(void) {
  omp_lock_t lock;
  omp_nest_lock_t nest;
  long total = 0, nested = 0;
  omp_init_lock(&lock);
  omp_init_nest_lock(&nest);
#pragma omp parallel
  for (int k = 0; k < 1000; ++k) {
    omp_set_lock(&lock);
    total++;
    omp_unset_lock(&lock);
    omp_set_nest_lock(&nest);
    omp_set_nest_lock(&nest);
    nested++;
    omp_unset_nest_lock(&nest);
    omp_unset_nest_lock(&nest);
  }
  CHECK(total == 1000L * omp_get_max_threads() && nested == total);
  CHECK(omp_test_lock(&lock) == 1);
  omp_unset_lock(&lock);
  omp_destroy_lock(&lock);
  omp_destroy_nest_lock(&nest);
}

/* Tasks outside any region that each start a parallel region: every worker
 * may be a master waiting for its members, so teams shrink to what they
 * could gather instead of waiting forever. */
static void regions_in_tasks(void) {
  int ok = 0;
  for (int k = 0; k < 8; ++k) {
#pragma omp task shared(ok)
    {
      int n = 0, size = 0;
#pragma omp parallel shared(n, size)
      {
#pragma omp atomic
        n++;
#pragma omp single
        size = omp_get_num_threads();
      }
      if (n == size && n >= 1) {
#pragma omp atomic
        ok++;
      }
    }
  }
#pragma omp taskwait
  CHECK(ok == 8);
}

int main(void) {
  long r = 0;
#pragma omp parallel
#pragma omp single
  r = fib(24);
  CHECK(r == fib_seq(24));
  dependency_checks();
  wait_checks();
  taskloop_checks();
  lock_checks();
  regions_in_tasks();
  return finish("tasks");
}
