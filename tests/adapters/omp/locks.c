/* Locks as a validation suite checks them (OpenMP 5.2 §18.9: locks are
 * owned by tasks, not threads):
 * - omp_test_nest_lock returns the new nesting count to the owning task;
 * - another task on the same thread (an undeferred or included child, or a
 *   deferred child that runs there) is not the owner: its test fails;
 * - simple and nested locks taken by tasks that threads of a team create
 *   protect a shared counter;
 * - a task that holds a lock across its children and a taskwait, with
 *   sibling tasks wanting the same lock, finishes (joule runs other tasks
 *   on a thread whose task waits: it must not run one that waits for the
 *   lock the suspended task holds).
 * Prints what a conforming runtime cannot change (compared with libgomp). */
#include <omp.h>

#include "check.h"

static void nest_counts(void) {
  omp_nest_lock_t l;
  omp_init_nest_lock(&l);
  const int a = omp_test_nest_lock(&l), b = omp_test_nest_lock(&l);
  omp_set_nest_lock(&l);
  const int c = omp_test_nest_lock(&l);
  int other = -1;
#pragma omp parallel num_threads(2) shared(other)
  if (omp_get_thread_num() == 1) other = omp_test_nest_lock(&l);
  for (int i = 0; i < 4; ++i) omp_unset_nest_lock(&l);
  int after = -1;
#pragma omp parallel num_threads(2) shared(after)
  if (omp_get_thread_num() == omp_get_num_threads() - 1) {
    after = omp_test_nest_lock(&l);
    omp_unset_nest_lock(&l);
  }
  printf("nest counts %d %d %d, another thread %d, after the last unset %d\n", a, b, c, other > 0,
         after);
  CHECK(a == 1 && b == 2 && c == 4 && other <= 0 && after == 1);
  omp_destroy_nest_lock(&l);
}

/* The owner is a task: children on the same thread are other tasks. */
static void owned_by_task(void) {
  omp_nest_lock_t n;
  omp_lock_t s;
  omp_init_nest_lock(&n);
  omp_init_lock(&s);
  int in_task = -1, undeferred = -1, included = -1, simple = -1, deferred = -1, again = -1;
#pragma omp task shared(n, s, in_task, undeferred, included, simple, deferred, again)
  {
    omp_set_nest_lock(&n);
    omp_set_lock(&s);
    in_task = omp_test_nest_lock(&n);
#pragma omp task if (0) shared(n, s, undeferred, simple)
    {
      undeferred = omp_test_nest_lock(&n);
      simple = omp_test_lock(&s);
    }
#pragma omp task final(1) shared(n, included)
    included = omp_test_nest_lock(&n);
#pragma omp task shared(n, deferred)
    deferred = omp_test_nest_lock(&n);
#pragma omp taskwait
    again = omp_test_nest_lock(&n);
    for (int i = 0; i < 3; ++i) omp_unset_nest_lock(&n);
    omp_unset_lock(&s);
  }
#pragma omp taskwait
  printf(
      "task owner: itself %d, undeferred child %d, included child %d, deferred child %d, "
      "simple in child %d, itself after taskwait %d\n",
      in_task, undeferred, included, deferred, simple, again);
  CHECK(in_task == 2 && undeferred == 0 && included == 0 && deferred == 0 && simple == 0 &&
        again == 3);
  omp_destroy_nest_lock(&n);
  omp_destroy_lock(&s);
}

static void counters(void) {
  omp_lock_t s;
  omp_nest_lock_t n;
  omp_init_lock(&s);
  omp_init_nest_lock(&n);
  long plain = 0, nested = 0;
#pragma omp parallel shared(plain, nested)
  {
#pragma omp for
    for (int i = 0; i < 64; ++i) {
      for (int k = 0; k < 8; ++k) {
#pragma omp task shared(plain, nested, s, n)
        {
          omp_set_lock(&s);
          ++plain;
          omp_unset_lock(&s);
          omp_set_nest_lock(&n);
          omp_set_nest_lock(&n);
          ++nested;
          while (!omp_test_lock(&s)) {
          }
          omp_unset_lock(&s);
          omp_unset_nest_lock(&n);
          omp_unset_nest_lock(&n);
        }
      }
    }
  }
  printf("counters %ld %ld\n", plain, nested);
  CHECK(plain == 512 && nested == 512);
  omp_destroy_lock(&s);
  omp_destroy_nest_lock(&n);
}

/* Each task holds the lock over its children and a taskwait. */
static void held_across_taskwait(void) {
  omp_lock_t s;
  omp_nest_lock_t n;
  omp_init_lock(&s);
  omp_init_nest_lock(&n);
  long work = 0;
#pragma omp parallel shared(work)
#pragma omp single
  for (int i = 0; i < 200; ++i) {
#pragma omp task shared(work, s, n) firstprivate(i)
    {
      if (i % 2)
        omp_set_lock(&s);
      else
        omp_set_nest_lock(&n);
      long mine = 0;
      for (int c = 0; c < 3; ++c) {
#pragma omp task shared(mine)
        {
#pragma omp atomic
          ++mine;
        }
      }
#pragma omp taskwait
#pragma omp atomic
      work += mine;
      if (i % 2)
        omp_unset_lock(&s);
      else
        omp_unset_nest_lock(&n);
    }
  }
  printf("held across a taskwait: %ld\n", work);
  CHECK(work == 600);
  omp_destroy_lock(&s);
  omp_destroy_nest_lock(&n);
}

int main(void) {
  nest_counts();
  owned_by_task();
#pragma omp parallel
#pragma omp single
  owned_by_task();
  counters();
  held_across_taskwait();
  return finish("locks");
}
