/* Detachable tasks (OpenMP 5.2 section 12.5.2, detach; omp_fulfill_event,
 * section 18.11.1): the task completes, releasing its successors and the
 * taskwait, taskgroup or barrier that waits for it, only once its body has
 * ended and its event is fulfilled, in either order and from any thread.
 * A fulfiller that sets `fulfilled` before omp_fulfill_event lets each
 * check see whether the completion waited for the event; the fulfillers
 * that must wait for something spin on a flag that another thread sets,
 * never on time. Prints only what every conforming runtime prints.
 *
 *   detach            the checks
 *   detach twice      fulfils one event twice: the runtime must stop
 */
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static volatile int body_done, fulfilled, seen;
/* The event the thread outside fulfils: GOMP_task stores it before the
 * body runs (a global in detach() crashes GCC 12, hence a pointer). */
static omp_event_handle_t* volatile ev_at;

static void spin_until(volatile int* flag) {
  while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) sched_yield();
}

static void fulfil(omp_event_handle_t ev) {
  __atomic_store_n(&fulfilled, 1, __ATOMIC_RELEASE);
  omp_fulfill_event(ev);
}

/* A thread outside the team: after the body (or at once), then a little
 * later still, so that a completion that does not wait shows. */
static void* late_fulfiller(void* arg) {
  if (arg) spin_until(&body_done);
  usleep(20000);
  fulfil(*ev_at);
  return NULL;
}

/* ev: the event as it is now, or (where) where GOMP_task will store it. */
static void start_late(pthread_t* th, omp_event_handle_t* ev, int after_body, int where) {
  static omp_event_handle_t now;
  now = where ? 0 : *ev;
  ev_at = where ? ev : &now;
  pthread_create(th, NULL, late_fulfiller, after_body ? (void*)1 : NULL);
}

static void reset(void) { body_done = fulfilled = seen = 0; }

/* Fulfilled by a sibling task; a depend(in) successor runs after both. */
static int from_task(void) {
  int x = 0, result = 0;
  reset();
#pragma omp parallel
#pragma omp single
  {
    omp_event_handle_t ev;
#pragma omp task detach(ev) depend(out : x)
    x = 1;
#pragma omp task depend(in : x) shared(result)
    result = x * 10 + fulfilled;
#pragma omp task firstprivate(ev)
    fulfil(ev);
  }
  CHECK(result == 11);
  return result;
}

/* Fulfilled by another thread after the body ended; taskwait waits. */
static int after_body_taskwait(void) {
  pthread_t th;
  reset();
#pragma omp parallel
#pragma omp single
  {
    omp_event_handle_t ev;
#pragma omp task detach(ev)
    body_done = 1;
    start_late(&th, &ev, 1, 0);
#pragma omp taskwait
    seen = fulfilled;
  }
  pthread_join(th, NULL);
  CHECK(seen == 1);
  return seen;
}

/* Fulfilled while the body still runs: the body waits for the fulfiller. */
static int before_body_ends(void) {
  int x = 0, result = 0;
  pthread_t th;
  reset();
#pragma omp parallel
#pragma omp single
  {
    omp_event_handle_t ev;
#pragma omp task detach(ev) depend(out : x) shared(x)
    {
      spin_until(&fulfilled);
      x = 2;
    }
    start_late(&th, &ev, 0, 0);
#pragma omp task depend(in : x) shared(result, x)
    result = x;
#pragma omp taskwait
  }
  pthread_join(th, NULL);
  CHECK(result == 2);
  return result;
}

/* A chain: each task's successor waits for its event too. */
static int chain(void) {
  enum { kLen = 6 };
  int x = 0;
  omp_event_handle_t evs[kLen];
#pragma omp parallel
#pragma omp single
  {
    for (int i = 0; i < kLen; ++i) {
      omp_event_handle_t ev;
#pragma omp task detach(ev) depend(inout : x) shared(x)
      x = x * 3 + i;
      evs[i] = ev;
    }
    for (int i = kLen - 1; i >= 0; --i) omp_fulfill_event(evs[i]);
#pragma omp taskwait
  }
  CHECK(x == ((((0 * 3 + 1) * 3 + 2) * 3 + 3) * 3 + 4) * 3 + 5);
  return x;
}

static int in_taskgroup(void) {
  pthread_t th;
  reset();
#pragma omp parallel
#pragma omp single
  {
#pragma omp taskgroup
    {
#pragma omp task shared(th)
      {
        omp_event_handle_t ev;
#pragma omp task detach(ev)
        body_done = 1;
        start_late(&th, &ev, 1, 0);
      }
    }
    seen = fulfilled;
  }
  pthread_join(th, NULL);
  CHECK(seen == 1);
  return seen;
}

/* The barrier at the end of single waits for the task too. A thread
 * outside the team fulfils it on joule; libgomp 12's barrier misses such
 * a fulfil (it hangs), so there a sibling task fulfils it. */
static int at_barrier(void) {
  pthread_t th;
  reset();
  const int outside = on_joule();
#pragma omp parallel
  {
#pragma omp single
    {
      omp_event_handle_t ev;
#pragma omp task detach(ev)
      body_done = 1;
      if (outside) {
        start_late(&th, &ev, 1, 0);
      } else {
#pragma omp task firstprivate(ev)
        fulfil(ev);
      }
    }
    if (fulfilled != 1) seen = -1;
  }
  if (outside) pthread_join(th, NULL);
  CHECK(seen == 0);
  return seen == 0;
}

/* Undeferred (if(0)): the body runs at once, the encountering task goes on
 * after it (OpenMP 5.2 section 12.5: the generating task resumes once the
 * structured block is done), and the task completes at the fulfil. On
 * joule the encountering thread fulfils it itself after the construct;
 * libgomp waits for the event in the construct, so there another thread
 * fulfils it. */
static int undeferred(void) {
  int x = 0, result = 0;
  pthread_t th;
  reset();
  const int self = on_joule();
#pragma omp parallel
#pragma omp single
  {
    omp_event_handle_t ev;
    if (!self) start_late(&th, &ev, 1, 1);
#pragma omp task detach(ev) if (0) depend(out : x) shared(x)
    {
      x = 5;
      body_done = 1;
    }
    CHECK(body_done == 1);
#pragma omp task depend(in : x) shared(result, x)
    result = x + fulfilled;
    if (self) fulfil(ev);
#pragma omp taskwait
  }
  if (!self) pthread_join(th, NULL);
  CHECK(result == 6);
  return result;
}

/* Included (inside a final task): there is no completion to hold apart
 * from the body, so the construct returns only after the fulfil (libgomp
 * does the same). */
static void included_body(pthread_t* th) {
  omp_event_handle_t ev;
  start_late(th, &ev, 1, 1);
#pragma omp task detach(ev)
  body_done = 1;
  seen = fulfilled;
}

static int included(void) {
  pthread_t th;
  reset();
#pragma omp parallel
#pragma omp single
  {
#pragma omp task final(1)
    included_body(&th);
#pragma omp taskwait
  }
  pthread_join(th, NULL);
  CHECK(seen == 1);
  return seen;
}

static void twice(void) {
#pragma omp parallel
#pragma omp single
  {
    omp_event_handle_t ev;
#pragma omp task detach(ev)
    body_done = 1;
    omp_fulfill_event(ev);
#pragma omp taskwait
    omp_fulfill_event(ev);
  }
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "twice") == 0) {
    twice();
    return 0;
  }
  for (int round = 0; round < 10; ++round) {
    int r[8] = {from_task(),    after_body_taskwait(), before_body_ends(), chain(),
                in_taskgroup(), at_barrier(),          undeferred(),       included()};
    if (round == 0)
      printf(
          "from task %d, after body %d, before body ends %d, chain %d, taskgroup %d, "
          "barrier %d, undeferred %d, included %d\n",
          r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
  }
  return finish("detach");
}
