// Detachable tasks (OpenMP 5.2 section 12.5.2, the detach clause) and
// omp_fulfill_event (section 18.11.1). A detachable task completes once
// its body has ended and its event is fulfilled, in either order, the
// fulfil from any thread. Its completion is held with joule's external
// events (the ALPI counters, <joule/alpi.h>): the body takes one event at
// its start, the fulfil gives it back, and joule completes the task
// (successors, taskwait, taskgroup, barrier) after both.
//
// Handles are numbers from 1 up, never reused, so that a second fulfil or
// a made-up handle is told apart from a live one. The table is looked at
// once per detachable task and once per fulfil: a mutex is enough.
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <unordered_map>

#include "joule/alpi.h"
#include "joule/team.h"
#include "task.hpp"
#include "team.hpp"

namespace joule::omp {
namespace {

struct Event {
  alpi_task* task = nullptr;            // the task holding an event (held) until the fulfil
  InlineFrame* frame = nullptr;         // an inline creator's taskwait counts the task
  joule_wait_slot_t* waiter = nullptr;  // a thread waiting for the fulfil itself
  bool held = false;
  bool body_done = false;
  bool fulfilled = false;
};

std::mutex g_mutex;
std::unordered_map<std::uint64_t, Event> g_events;
std::uint64_t g_last = 0;

[[noreturn]] void bad_event(std::uint64_t ev, const char* what) {
  std::fprintf(stderr, "libjoule-omp: omp_fulfill_event: event %#llx %s\n",
               static_cast<unsigned long long>(ev), what);
  std::fflush(stdout);
  std::_Exit(EXIT_FAILURE);
}

// Both happened: the record goes; an inline creator learns of the end.
void finish(std::unordered_map<std::uint64_t, Event>::iterator it, InlineFrame** frame) {
  *frame = it->second.frame;
  g_events.erase(it);
}

int fulfilled_now(void* arg) {
  std::lock_guard lock(g_mutex);
  return g_events.at(*static_cast<std::uint64_t*>(arg)).fulfilled ? 1 : 0;
}

}  // namespace

std::uint64_t event_create() {
  // Blocking and event counters need tasks that are really deferred:
  // this ends joule's serial inline mode for the tasks made from now on.
  alpi_task* ignored = nullptr;
  alpi_task_self(&ignored);
  std::lock_guard lock(g_mutex);
  g_events.emplace(++g_last, Event{});
  return g_last;
}

void event_body_start(std::uint64_t ev, InlineFrame* frame) {
  alpi_task* self_task = nullptr;
  std::lock_guard lock(g_mutex);
  Event& e = g_events.at(ev);
  e.frame = frame;
  if (e.fulfilled) return;  // fulfilled before the body started: nothing to hold
  e.held = alpi_task_self(&self_task) == ALPI_SUCCESS && self_task &&
           alpi_task_events_increase(self_task, 1) == ALPI_SUCCESS;
  e.task = self_task;
}

// At the body's end. Without a held event (an included task, or one that
// joule ran inline: its successors would not wait) the thread that ran the
// body waits for the fulfil itself, running other tasks meanwhile.
void event_body_end(std::uint64_t ev) {
  InlineFrame* frame = nullptr;
  bool wait = false;
  {
    std::lock_guard lock(g_mutex);
    auto it = g_events.find(ev);
    Event& e = it->second;
    e.body_done = true;
    if (e.fulfilled) {
      finish(it, &frame);
    } else if (!e.held) {
      wait = true;
      e.waiter = joule_current_wait_slot();
    }
  }
  if (wait) {
    SeatAway away;
    joule_wait_until(fulfilled_now, &ev);
    std::lock_guard lock(g_mutex);
    finish(g_events.find(ev), &frame);
  }
  if (frame) frame_child_done(frame);
}

void event_fulfil(std::uint64_t ev) {
  alpi_task* release = nullptr;
  InlineFrame* frame = nullptr;
  joule_wait_slot_t* wake = nullptr;
  {
    std::lock_guard lock(g_mutex);
    auto it = g_events.find(ev);
    if (it == g_events.end())
      bad_event(ev, ev != 0 && ev <= g_last ? "was already fulfilled"
                                            : "is not an event of a detachable task");
    Event& e = it->second;
    if (e.fulfilled) bad_event(ev, "was already fulfilled");
    e.fulfilled = true;
    if (e.held) release = e.task;
    wake = e.waiter;
    if (e.body_done && !wake) finish(it, &frame);
  }
  if (wake) joule_wake_slot(wake);
  if (release) alpi_task_events_decrease(release, 1);  // joule may complete the task now
  if (frame) frame_child_done(frame);
}

}  // namespace joule::omp

extern "C" {

JOULE_EXPORT void omp_fulfill_event(std::uintptr_t event) { joule::omp::event_fulfil(event); }

// Fortran: gfortran's omp_lib declares the handle `value`, so it arrives
// as in C (see `gfortran -fopenmp -fdump-tree-ompexp`).
JOULE_EXPORT void omp_fulfill_event_(std::uintptr_t event) { joule::omp::event_fulfil(event); }

}  // extern "C"
