// Per-thread state of the runtime: which worker this thread is (if any),
// which task it is running, and its task pool. Workers and external threads
// (any thread that spawns) both have one.
#pragma once

#include <cstdint>

#include "task.hpp"
#include "wait_slot.hpp"

namespace joule::engine {

using namespace joule::core;

class Worker;

struct ThreadContext {
  std::uint64_t generation = 0;  // runtime instance this context was set up for
  Worker* worker = nullptr;      // null on external threads
  Task* current = nullptr;       // running task, or the thread's root task
  Task* root = nullptr;          // implicit task owning this thread's top-level tasks
  // A worker's parent for independent tasks (Runtime::spawn_root), made on
  // first use. Not `root`: a worker's loop is at its top level while
  // current == root (TaskLifecycle::hold_child), and its root is null.
  Task* spawn_root = nullptr;
  TaskPool* pool = nullptr;
  // Immediate-successor slot: a task a finishing task released, run next
  // here (its inputs are in this cache). Never a task just created: those
  // go to the deque, so a body's children run newest first.
  Task* next = nullptr;
  WaitSlot* slot = nullptr;  // where this thread sleeps (Idle)
  bool in_loop = false;      // inside a scheduling loop: `next` will be run
  bool searching = false;    // counted by Idle as looking for work
  // Finished children of held_parent not yet subtracted from its pending
  // count (TaskLifecycle::hold_child): only at a worker loop's top level.
  bool may_hold = false;
  Task* held_parent = nullptr;
  std::int64_t held = 0;
  std::uint32_t creations = 0;  // since the last throttle check
  // Creations before the next check: far below the limit the check (a sum
  // over every worker) need not run for a while (TaskLifecycle::throttle).
  std::uint32_t throttle_every = 64;
  int help_depth = 0;  // nested waits on this thread's stack
  // While it points to a positive count, this thread's waits run only the
  // waiting task's descendants (joule_restrict_waits_by: a task below holds
  // a lock). The count is the layer's thread_local: it lives as long as this.
  const int* descendants_only = nullptr;
  std::uint64_t next_id = 0;  // task ids: thread slot << 40 | sequence
  // Blocks of one other thread's pool freed here, handed back in one push
  // (TaskPool::free_block): one contended atomic per batch, not per task.
  struct RemoteFrees {
    TaskPool* home = nullptr;
    void* head = nullptr;
    void* tail = nullptr;
    int count = 0;
  } remote_frees;
};

ThreadContext& thread_context() noexcept;
TaskPool* current_pool() noexcept;

}  // namespace joule::engine
