// The task lifecycle room: a task is created, gets its dependencies, is
// submitted, becomes ready (queued, with the wake-ups that brings), runs on
// some thread and completes (successors released, parent told, memory
// freed). This is the engine's hot path: the parts it touches on every
// task (the ready queues, Idle, the flags decided at start) are copied into
// members here at start (wire), so each step reads them from `this`, as one
// class's members, not through the Runtime.
//
//   create -> add_dep* -> submit -> make_ready -> push_and_wake
//      run_one -> execute -> run_body -> complete -> finish
//        -> release_successors -> make_ready (next task) ...
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <vector>

#include "affinity_map.hpp"
#include "joule/types.hpp"
#include "observer.hpp"
#include "task.hpp"
#include "task_hooks.hpp"
#include "thread_context.hpp"

namespace joule::queues {
class ReadyQueues;
}

namespace joule::engine {

using namespace joule::core;

class Runtime;
class Idle;
class DepDomain;
class NumaPlacement;
class LendingBridge;

class TaskLifecycle {
 public:
  explicit TaskLifecycle(Runtime& rt) : rt_(rt) {}
  // Copies the parts the hot path reads (called once the Runtime has them).
  void wire();

  // ---- creating and submitting (task_submit.cpp) ----
  Task* create(joule_task_fn_t fn, std::size_t args_size, std::size_t args_align,
               const task_options& opts);
  // op: a reduction's operator (kind reduction only; null: commutative).
  void add_dep(Task* t, int kind, const void* addr, std::size_t bytes,
               const joule_reduction_op_t* op = nullptr);
  // A task's dependencies at once: their index lookups overlap. Dep:
  // joule::dep or joule_dep_t (add_dep_list is instantiated for both in
  // task_submit.cpp). A task without any costs no call.
  template <class Dep>
  void add_deps(Task* t, const Dep* deps, std::size_t n) {
    if (n != 0) add_dep_list(t, deps, n);
  }
  void submit(Task* t);
  // Team members (libjoule-omp): each on another worker's queue.
  void submit_spread(Task* const* tasks, int n);
  // A task without dependencies that only `worker` may run.
  void submit_pinned(Task* t, int worker, ThreadContext& ctx);
  // Dependencies may be registered already: the task passes through the
  // graph without a body.
  void discard(Task* t);

  // ---- running (task_lifecycle.cpp) ----
  // Runs one ready task if there is one.
  bool run_one(ThreadContext& ctx);
  // t's body returned: t completes once its children have (execute).
  void end_body(Task* t, ThreadContext& ctx);
  // A task whose body returned suspended goes back to the ready queue; its
  // body runs again (Blocking::resubmit).
  void requeue(Task* t, ThreadContext& ctx);
  // Deep in nested waits: runs only descendants of `waiter`, setting other
  // ready tasks aside in `deferred` (so the stack stays bounded).
  bool run_one_within(ThreadContext& ctx, Task* waiter, std::vector<Task*>& deferred);
  // Puts back what run_one_within deferred, waking sleepers for it.
  void return_deferred(std::vector<Task*>& deferred);
  void execute(Task* t, ThreadContext& ctx);
  // Returns the thread's privately held ready task to the queue.
  void flush_private(ThreadContext& ctx);
  // Subtracts the children this thread finished but has not yet counted
  // (hold_child) from their parent: before it idles, waits or parks.
  void flush_held(ThreadContext& ctx);
  // The thread stops looking for work (Idle); found: it is about to run a
  // task, so the next sleeper may take over the looking.
  void end_search(ThreadContext& ctx, bool found) noexcept;
  // Ready tasks (a predecessor finished, an event): queued with wake-ups.
  // released: their last predecessor just finished on this thread.
  void make_ready(Task** tasks, int n, ThreadContext& ctx, bool released);

  // ---- completing (task_complete.cpp) ----
  // Body and every descendant done: successors, parent, memory.
  void complete(Task* t, ThreadContext& ctx);
  void record_exception(Task* parent, std::exception_ptr e, std::uint32_t suppressed);
  // Tasks created and not finished, summed over every worker's counters.
  std::int64_t in_flight() const noexcept;
  std::uint64_t completed_total() const noexcept;

  // The calling thread runs a final task's body (its children run inline).
  bool in_final();

  // ---- the serial inline mode ----
  bool serial_inline() const noexcept { return serial_.load(std::memory_order_relaxed); }
  void set_serial_inline(bool on) noexcept { serial_.store(on, std::memory_order_relaxed); }
  // Ends it (true when it was on): tasks created from now on are deferred.
  bool end_serial_inline() noexcept { return serial_.exchange(false); }
  // Runs inline at submit, in creation order, with no dependency tracking:
  // below a final task, or when the runtime runs everything inline.
  static bool included(const Task* t) noexcept {
    return t->parent && t->parent->has(task_flag::final | task_flag::serial);
  }

 private:
  template <class Dep>
  void add_dep_list(Task* t, const Dep* deps, std::size_t n);
  void vet(Task* t, int kind, const void* addr, std::size_t bytes, const joule_reduction_op_t* op,
           bool watched);
  DepDomain* new_domain(Task* parent);
  void track(Task* t, int kind, const void* addr, std::size_t bytes, const joule_reduction_op_t* op,
             std::uint64_t mixed);
  void note_submitted(Task* t, ThreadContext& ctx);
  void wait_ready_and_run(Task* t, ThreadContext& ctx);
  void throttle(ThreadContext& ctx);
  void wait_for_room(ThreadContext& ctx, std::int64_t target);
  void run_body(Task* t);
  void run_body_here(Task* t) noexcept;
  void run_observed(Task* t, ThreadContext& ctx);
  Task* finish(Task* t, ThreadContext& ctx);
  Task* settle_children(Task* parent, std::int64_t n) noexcept;
  bool hold_child(Task* parent, ThreadContext& ctx);
  void release_successors(Task* t, ThreadContext& ctx);
  bool elsewhere(const Task* t, const ThreadContext& ctx) const noexcept;
  void push_and_wake(Task* const* tasks, int n, int pusher);
  void push_pinned_and_wake(Task* const* tasks, int n, int pusher);
  void count_created(ThreadContext& ctx) noexcept;
  void count_completed(ThreadContext& ctx) noexcept;

  Runtime& rt_;
  // Copied at wire(): read on every task.
  queues::ReadyQueues* scheduler_ = nullptr;
  Idle* idle_ = nullptr;
  NumaPlacement* numa_ = nullptr;
  LendingBridge* lending_bridge_ = nullptr;
  const AffinityMap* affinity_ = nullptr;
  const std::vector<std::unique_ptr<Observer>>* observers_ = nullptr;
  const TaskHook* hook_ = nullptr;  // null: no layer watches host tasks
  int owned_workers_ = 0;
  int throttle_tasks_ = 0;
  std::int64_t throttle_polling_ = 0;  // the limit while a polling service runs
  bool observed_ = false;
  bool lending_ = false;
  bool follows_data_ = false;  // the policy queues tasks where their data is (locality)
  bool newest_first_ = false;  // a worker takes its own newest task first (work-stealing)
  bool oversubscribed_ = false;
  bool immediate_successor_ = false;
  bool numa_active_ = false;  // data-node preference (NumaPlacement)
  // One worker, no lending: tasks run inline (serial_inline); cleared by
  // end_serial_inline from any thread.
  std::atomic<bool> serial_{false};
  // Tasks of threads that are not workers (workers count their own).
  alignas(64) std::atomic<std::uint64_t> external_created_{0};
  alignas(64) std::atomic<std::uint64_t> external_completed_{0};
};

}  // namespace joule::engine
