// Explicit tasks. A deferred task is a joule task: GCC's argument block is
// copied into the joule task's own block, behind a small header naming the
// body and the team the task binds to. An included task, and an undeferred
// or throttled one without dependencies, runs at once on the creating
// thread as a plain call, with no joule task (task_inline.cpp; when to
// throttle: task_throttle.cpp).
#pragma once

#include <atomic>
#include <cstdint>

#include "joule/joule.h"
#include "joule/team.h"

namespace joule::omp {

struct ThreadState;

struct GompTask {
  void (*fn)(void*);
  void* data;
  void (*cpyfn)(void*, void*);
  long arg_size;
  long arg_align;
  std::uint64_t event = 0;  // a detachable task's event (task_detach.cpp), or 0
  bool has_deps = false;    // dependencies follow (for an OMPT tool's task_create)
};

// The deferred children of a task that runs inline: it has no joule task,
// so its children are joule children of the enclosing joule task, and its
// taskwait waits for this count. Made at its first deferred child; the
// task and each child hold a reference (children may outlive the task).
struct InlineFrame {
  std::atomic<int> pending{0};          // children not finished
  std::atomic<int> refs{1};             // the task's own + one per pending child
  std::atomic<bool> waiting{false};     // a taskwait may sleep: wake it at 0
  joule_wait_slot_t* waiter = nullptr;  // where it sleeps (set before `waiting`)
};

// Creates the task with its argument block filled (cpyfn or a copy); the
// caller adds dependencies and submits. bounds: taskloop's first two
// fields of the block (its iteration range), or null.
joule_task_t* create_task(const GompTask& g, const joule_task_options_t& opts,
                          const std::uint64_t* bounds);

// Adds the dependencies of a task just created (task_depend.cpp).
void add_deps(joule_task_t* t, const joule_dep_t* deps, std::size_t n);
// The taskwait and taskgroup constructs (task.cpp), with their OMPT events.
void taskwait();
void taskgroup_open();
void taskgroup_close();

// ---- task_throttle.cpp ----
// True when a task without dependencies should run at once: if(0), or
// many deferred tasks have not started yet.
bool should_run_inline(bool if_clause);
// Counts a deferred task made (by the calling thread) and one started.
void count_deferred();
void count_started();
// At a member's start (members.cpp).
void reset_throttle();

// ---- task_inline.cpp ----
// Runs the task now on this thread (final_task: it is itself final;
// bounds: as for create_task, which needs a copy of the block).
void run_inline(const GompTask& g, bool final_task, const std::uint64_t* bounds);
void run_inline_seated(const GompTask& g, bool final_task, const std::uint64_t* bounds);
// run_inline's two halves, for a task whose body the compiled code calls
// itself between them (the LLVM ABI's if(0) tasks); tag: the task's identity for locks.
struct InlineSaved {
  bool in_task, in_final, inline_task;
  InlineFrame* frame;
  const void* tag;
};
// inline_enter, inline_leave: task_inline.hpp.
// The current task's frame for one more deferred child (made if needed);
// null outside inline tasks. The child calls frame_child_done at its end.
InlineFrame* frame_for_child(ThreadState& s);
void frame_child_done(InlineFrame* f);
// The task's own reference, at its end.
void frame_release(InlineFrame* f);
// taskwait: the current task's children. taskgroup end: its descendants.
void wait_children();
void wait_descendants();

// ---- task_detach.cpp ----
// A new event for a detachable task (its omp_event_handle_t).
std::uint64_t event_create();
// From the task's body, at its start: holds the task's completion (joule
// events) until the fulfil. frame: as the header's, told at the completion.
void event_body_start(std::uint64_t ev, InlineFrame* frame);
// After the body; waits for the fulfil when nothing holds the completion.
void event_body_end(std::uint64_t ev);
void event_fulfil(std::uint64_t ev);

// ---- task_depend.cpp ----
// GCC's depend array: the old layout {n, n_out, addr...} or the newer one
// {0, n, n_out, n_mutex, n_in, addr..., depobj...}.
void add_depend(joule_task_t* t, void** depend);
// The same array as joule dependencies (for GOMP_taskwait_depend); n entries.
int depend_count(void** depend);
void depend_to_joule(void** depend, joule_dep_t* out);

}  // namespace joule::omp
