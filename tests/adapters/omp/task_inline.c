/* Tasks that libjoule-omp runs inline, without a joule task of their own
 * (api/adapters/omp/task_inline.cpp): included tasks of final ones,
 * if(0) tasks without dependencies, and tasks made while many wait to
 * start. Their taskwait, taskgroup, dependencies among their children and
 * children that outlive them must behave as for any task. */
#include <omp.h>
#include <string.h>

#include "check.h"

#define MANY 6000

static int done[MANY];
static int grandchild_done[MANY];

/* One thread makes MANY tasks in a loop: past the throttle most run
 * inline; every 50th makes deferred children and waits for them, every
 * 50th + 1 leaves its children running (they outlive it). */
static void throttled_checks(void) {
  memset(done, 0, sizeof done);
  memset(grandchild_done, 0, sizeof grandchild_done);
  int bad = 0;
#pragma omp parallel
#pragma omp single
  {
    for (int i = 0; i < MANY; ++i) {
#pragma omp task firstprivate(i) shared(bad)
      {
        if (i % 50 == 0) {
          int kids[4] = {0, 0, 0, 0};
          for (int k = 0; k < 4; ++k) {
#pragma omp task firstprivate(k) shared(kids)
            kids[k] = 1;
          }
#pragma omp taskwait
          for (int k = 0; k < 4; ++k)
            if (!kids[k]) {
#pragma omp atomic
              ++bad;
            }
        } else if (i % 50 == 1) {
#pragma omp task firstprivate(i)
          grandchild_done[i] = 1;
        }
        done[i] = 1;
      }
    }
#pragma omp taskwait
    int missing = 0;
    for (int i = 0; i < MANY; ++i) missing += !done[i];
    CHECK(missing == 0);
  }
  /* the region's end waits for every descendant */
  for (int i = 1; i < MANY; i += 50) CHECK(grandchild_done[i] == 1);
  CHECK(bad == 0);
}

/* if(0) tasks: their children are theirs (taskwait, taskgroup) and keep
 * their order among themselves (depend). */
static void undeferred_checks(void) {
#pragma omp parallel
#pragma omp single
  {
    int a = 0, b = 0, order_ok = 1, grand = 0;
#pragma omp task if (0) shared(a, b, order_ok, grand)
    {
#pragma omp task depend(out : a) shared(a)
      a = 1;
#pragma omp task depend(in : a) depend(out : b) shared(a, b, order_ok)
      {
        if (a != 1) order_ok = 0;
        b = 2;
      }
#pragma omp taskwait
      CHECK(a == 1 && b == 2);
#pragma omp taskgroup
      {
#pragma omp task shared(grand)
        {
#pragma omp task shared(grand)
          grand = 7;
        }
      }
      CHECK(grand == 7);
    }
    CHECK(order_ok);
  }
}

/* final: every descendant is included (omp_in_final), taskloop and
 * taskgroup inside included tasks run to completion; firstprivate VLAs
 * (copied by GCC's cpyfn) arrive intact, small and large. */
static void final_checks(void) {
  int in_final_bad = 0, sum = 0;
  int iters[300];
  memset(iters, 0, sizeof iters);
#pragma omp parallel
#pragma omp single
  {
#pragma omp task final(1) shared(in_final_bad, sum, iters)
    {
      if (!omp_in_final()) in_final_bad = 1;
      for (int k = 0; k < 10; ++k) {
#pragma omp task firstprivate(k) shared(in_final_bad, sum)
        {
          if (!omp_in_final()) in_final_bad = 1;
          sum += k; /* included: run in order on this thread */
        }
      }
#pragma omp taskloop grainsize(7)
      for (int i = 0; i < 300; ++i) iters[i] += 1;
    }
  }
  CHECK(!in_final_bad);
  CHECK(sum == 45);
  int missing = 0;
  for (int i = 0; i < 300; ++i) missing += iters[i] != 1;
  CHECK(missing == 0);
}

static void vla_checks(int n_small, int n_large) {
  int small[n_small], large[n_large];
  for (int i = 0; i < n_small; ++i) small[i] = i;
  for (int i = 0; i < n_large; ++i) large[i] = 3 * i;
  int ok_small = 0, ok_large = 0;
#pragma omp parallel
#pragma omp single
  {
#pragma omp task if (0) firstprivate(small) shared(ok_small)
    {
      ok_small = 1;
      for (int i = 0; i < n_small; ++i) ok_small &= small[i] == i;
      small[0] = -1; /* the task's copy */
    }
#pragma omp task if (0) firstprivate(large) shared(ok_large)
    {
      ok_large = 1;
      for (int i = 0; i < n_large; ++i) ok_large &= large[i] == 3 * i;
    }
  }
  CHECK(ok_small && ok_large);
  CHECK(small[0] == 0);
}

int main(int argc, char **argv) {
  (void)argv;
  throttled_checks();
  undeferred_checks();
  final_checks();
  vla_checks(8 + argc, 400 + argc); /* sizes unknown to the compiler */
  return finish("task_inline");
}
