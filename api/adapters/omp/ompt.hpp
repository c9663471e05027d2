// The OMPT tools interface (docs/openmp-llvm-abi.md, "Tools (OMPT)"): the
// hooks the constructs call. Without a tool attached each hook is one test
// of g_on, a byte written once at start; the work is out of line.
#pragma once

#include <cstddef>
#include <cstdint>

#include "joule/joule.h"
#include "ompt_abi.hpp"

namespace joule::omp {
struct Team;
}

namespace joule::omp::ompt {

extern bool g_on;  // a tool is attached and active
inline bool on() { return __builtin_expect(g_on, 0); }

// ---- start-up (ompt_start.cpp) ----
// Looks for a tool once (OMP_TOOL, OMP_TOOL_LIBRARIES) and initialises it;
// called by ensure_init.
void start_tool();
// ompt_finalize_tool and the exit: the tool's finalizer, once.
void finalize_tool();

// ---- events (ompt_events.cpp, ompt_tasks.cpp) ----
// The registered callback of an event, or null.
extern void* g_callbacks[kEventLimit];
template <class Cb>
inline Cb callback(Event e) {
  return reinterpret_cast<Cb>(g_callbacks[e]);
}

// The calling thread's start (thread_begin and its initial task) and end.
void thread_start(ThreadType type);
void thread_finish();

// A task as OMPT sees it: the tool's data and where it binds.
struct TaskRecord {
  Data data{};
  Data* parallel = nullptr;  // the binding region's data
  int flags = 0;
  int thread_num = 0;
  int saved_state = 0;  // the thread's state before it ran this task
};
inline constexpr std::size_t kTaskRecordBytes = 32;
static_assert(sizeof(TaskRecord) <= kTaskRecordBytes);

// ompt_get_thread_data, ompt_get_state.
Data* thread_data();
int get_state(std::uint64_t* wait_id);

// The current task's record on this thread (its initial task if none).
TaskRecord* current_task();
// Makes `rec` the current task (returns the one it replaces) and back.
TaskRecord* enter_task(TaskRecord* rec, State state);
void leave_task(TaskRecord* rec, TaskRecord* prev);

// Parallel regions and their members (ompt_events.cpp).
void parallel_begin(Team* t, unsigned requested);
void parallel_end(Team* t);
// Member `id` of t starts / leaves (its record lives on the caller's stack).
TaskRecord* implicit_begin(TaskRecord* rec, Team* t, int id);
void implicit_end(TaskRecord* rec, TaskRecord* prev);
void sync_begin(SyncKind kind);
void sync_end(SyncKind kind);
// copyprivate's hand-over, as an implementation barrier of every member:
// the executor's passes at once before it publishes, the others' wait.
inline void handover_publish() {
  if (!on()) return;
  sync_begin(kBarrierImplementation);
  sync_end(kBarrierImplementation);
}
void work(WorkKind kind, Endpoint ep, std::uint64_t count);
// A loop, sections or distribute construct starts (count: its iterations or
// sections) / the thread's innermost one ends (none open: nothing).
void work_open(WorkKind kind, std::uint64_t count);
void work_close();
void masked(Endpoint ep);
void mutex_acquired(MutexKind kind, const void* lock);
// The next lock this thread takes or lets go of is of this kind, not a lock
// (critical and atomic sections are locks: omp_locks.cpp).
void next_mutex_kind(MutexKind kind);
void mutex_released(MutexKind kind, const void* lock);

// Explicit tasks (ompt_tasks.cpp). A deferred task's record is in its block.
void task_created(TaskRecord* rec, bool final_task, bool has_deps, const void* fn);
void task_dependences(const joule_dep_t* deps, std::size_t n);
TaskRecord* task_begin(TaskRecord* rec);
void task_end(TaskRecord* rec, TaskRecord* prev);
// An included / undeferred task run on the creating thread (task_inline.cpp).
void inline_begin(bool final_task);
// The dependences the next included task of this thread waited for (the
// LLVM ABI's if(0) and throttled tasks with depend): reported at its creation.
void next_inline_deps(const joule_dep_t* deps, std::size_t n);
void inline_end();

}  // namespace joule::omp::ompt
