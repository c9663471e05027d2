/* An OmpSs-2 program on the Nanos6 API, built by joulecc: <nanos6.h> is
 * found under its Nanos6 name (joulecc's -I<include>/joule/nanos6).
 * Checks the CPU count against JOULE_WORKERS; tasks that block themselves
 * until a child unblocks them, and until a polling service does (as a
 * task-aware MPI layer would); an event counter that holds a task's
 * successor until a polling service fulfils the event. Run at 1 and 2
 * workers (programs_test.cpp): at one, the blocked task's own helping
 * wait must run the child and the services. */
#include <nanos6.h>
#include <stdio.h>
#include <stdlib.h>

#define N 8

struct service_state {
  int calls, stop_at;
  void *blocked; /* unblocked when the service is done, when set */
  void *events;  /* one event decreased when the service is done, when set */
  int *value;    /* written before the event is decreased */
};

static int service(void *p) {
  struct service_state *s = p;
  if (++s->calls < s->stop_at) return 0;
  if (s->value) *s->value = 42;
  if (s->events) nanos6_decrease_task_event_counter(s->events, 1);
  if (s->blocked) nanos6_unblock_task(s->blocked);
  return 1; /* done: the runtime drops the service */
}

static int blocked_by_children(void) {
  int flags[N] = {0}, ok = 0;
  for (int i = 0; i < N; i++) {
#pragma oss task shared(flags, ok) firstprivate(i)
    {
      void *me = nanos6_get_current_blocking_context();
#pragma oss task shared(flags) firstprivate(i, me)
      {
        flags[i] = 1;
        nanos6_unblock_task(me);
      }
      nanos6_block_current_task(me);
#pragma oss atomic
      ok += flags[i];
    }
  }
#pragma oss taskwait
  return ok;
}

int main(void) {
  const char *env = getenv("JOULE_WORKERS");
  unsigned cpus = nanos6_get_num_cpus();
  if (!env || cpus != (unsigned)atoi(env)) {
    printf("nanos6_get_num_cpus() = %u, JOULE_WORKERS = %s\n", cpus, env ? env : "(unset)");
    return 1;
  }
  int unblocked = blocked_by_children();

  struct service_state by_service = {0, 20, NULL, NULL, NULL};
#pragma oss task shared(by_service)
  {
    by_service.blocked = nanos6_get_current_blocking_context();
    nanos6_register_polling_service("unblock", service, &by_service);
    nanos6_block_current_task(by_service.blocked);
  }

  int x = 0, seen = 0;
  struct service_state event = {0, 20, NULL, NULL, &x};
#pragma oss task out(x) shared(event)
  {
    event.events = nanos6_get_current_event_counter();
    nanos6_increase_current_task_event_counter(event.events, 1);
    nanos6_register_polling_service("event", service, &event);
  }
#pragma oss task in(x) out(seen)
  seen = x;
#pragma oss taskwait
  printf("nanos6_api: %u CPUs, %d/%d unblocked by a child, service calls %d, seen %d\n", cpus,
         unblocked, N, by_service.calls, seen);
  if (unblocked != N || by_service.calls != 20 || event.calls != 20 || seen != 42) return 1;
  printf("OK\n");
  return 0;
}
