// The blocking room: tasks that wait for something outside the engine.
// The Nanos6 blocking and event API and ALPI (TAMPI uses both) come here:
// a task blocks until another thread unblocks it, holds its completion on
// external events, spawns independent tasks, and registers polling
// services that idle threads run (polling_services.hpp). The offload
// layers hold a task's completion until its device reports back.
//
// A blocked task keeps its own thread, asleep, and a spare thread runs
// other ready tasks on its CPU meanwhile (spare_threads.hpp), as Nanos6
// does: blocked tasks never hold each other up, and an unblocked one
// resumes at once (docs/internals.md, "Blocked tasks").
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <vector>

#include "polling_services.hpp"
#include "task.hpp"
#include "thread_context.hpp"

namespace joule::engine {

using namespace joule::core;

class Runtime;

enum class BlockResult { ok, outside_task, not_current, runs_inline };

class Blocking {
 public:
  explicit Blocking(Runtime& rt) : rt_(rt) {}
  // The running runtime (started if needed), activated: every Nanos6 and
  // ALPI call that needs deferred tasks goes through it.
  static Runtime& runtime();

  // The first call of a blocking API: blocking needs a task that waits to
  // let others run, so the serial inline mode ends (tasks created from now
  // on are deferred even with one worker; those running inline stay so).
  void activate() noexcept;
  // Whether the program called the Nanos6 or ALPI API (Blocking::runtime):
  // from then on a task may block, and JOULE_TASKWAIT=auto waits yield
  // their CPU instead of running unrelated tasks on their stack.
  bool tasks_may_block() const noexcept { return may_block_.load(std::memory_order_relaxed); }
  // The task the calling thread runs, or null outside a task; the thread
  // that started the runtime runs its root task at its top level (main()
  // is a task under OmpSs-2).
  Task* current_task();
  // The CPU seat the calling thread runs on (its worker's index, or the
  // worker a spare stands in for), -1 for other threads.
  int current_worker();

  // Blocks t, the calling thread's current task, until unblock(t); at once
  // when an unblock came first.
  BlockResult block(Task* t);
  void unblock(Task* t);  // from any thread
  // Events of t (the calling task): each holds its completion.
  BlockResult increase_events(Task* t, std::int64_t n);
  // From any thread; false when t has fewer than n events.
  bool decrease_events(Task* t, std::int64_t n);
  // Runs ready tasks for at least ns nanoseconds (ALPI's waitfor).
  void wait_for_ns(std::uint64_t ns);
  // body(args) as a task with no parent's dependencies; done(done_args)
  // after it and its descendants completed.
  void spawn_independent(void (*body)(void*), void* args, void (*done)(void*), void* done_args,
                         const char* label);

  // ---- completion held by an external event (blocking.cpp) ----
  // From t's body: t completes only after release_hold. False (nothing held)
  // for tasks that run inline, whose caller must wait for the event itself.
  // n holds at once (event counters).
  bool hold_completion(Task* t, std::int64_t n = 1) noexcept;
  // From any thread, once per successful hold (n of them at once); `error`
  // is rethrown at the parent's taskwait.
  void release_hold(Task* t, std::exception_ptr error, std::int64_t n = 1);

  // ---- ALPI's suspend (blocking_suspend.cpp) ----
  // What happens when a suspended task's body returns: nothing more (it
  // completes), it runs again, again after args nanoseconds, again once
  // its events are 0 (ALPI's alpi_suspend_mode_t, in that order).
  enum class SuspendMode { none = 0, submit, timeout_submit, event_submit };
  // For t, the calling task, the next time it suspends.
  BlockResult set_suspend_mode(Task* t, SuspendMode mode, std::uint64_t args);
  // t, the calling task, runs its body again (the mode says when) instead
  // of completing when the body returns.
  BlockResult suspend(Task* t);
  // From TaskLifecycle::execute: a suspended task's body returned.
  void resubmit(Task* t, ThreadContext& ctx);

  // ---- polling services ----
  void add_polling_service(const char* name, PollingServices::Fn fn, void* data);
  bool remove_polling_service(PollingServices::Fn fn, void* data);

  // ---- for the state dump (state_dump.cpp) ----
  // Copies of the listed tasks' fields: a task listed may be resumed and
  // gone by the time the caller reads them. Each list is read under a
  // try-lock (a dump never waits for a task's thread): false, nothing
  // copied, when the lock stayed taken.
  struct Blocked {
    std::uint64_t id;
    const char* label;
    std::uint64_t since_ns;
    int worker;  // the seat it blocked on (Spares::seat_of); -1: none
    // Its parent (0: a thread's top level): the taskwait that waits for it.
    std::uint64_t parent_id;
    const char* parent_label;
  };
  bool blocked_now(std::vector<Blocked>& out) const;
  // Suspended tasks waiting for a time or their events (ALPI).
  struct Suspended {
    Blocked task;          // worker: -1
    std::uint64_t due_ns;  // 0: waits for its events
    std::int32_t events;   // outstanding now
  };
  bool suspended_now(std::vector<Suspended>& out) const;

 private:
  struct Entry {
    Task* task;
    Blocked info;
    WaitSlot* slot;  // where its thread sleeps (ThreadContext::block_slot)
  };
  void sleep_blocked(Task* t, ThreadContext& ctx);
  void enter_api() noexcept;  // activate, and note that a task may block
  static Blocked note_of(const Task* t, std::uint64_t since_ns, int worker);
  // A dump's try-lock: a bounded number of tries, yielding between them.
  static bool lock_for_dump(std::unique_lock<std::mutex>& guard);
  // Suspended tasks waiting for a time or their events: a polling service
  // runs while any wait and puts the due ones back in the ready queue.
  struct Waiting {
    Task* task;
    std::uint64_t due_ns;  // 0: when its events are 0
    Blocked info;          // for the dump, copied by the task's own thread
  };
  static int poll_suspended(void* self);

  mutable std::mutex suspend_mutex_;
  // Modes set and not used yet, by task id (ids are never reused in a run).
  std::vector<std::pair<std::uint64_t, std::pair<SuspendMode, std::uint64_t>>> modes_;
  std::vector<Waiting> waiting_;
  bool polling_waiting_ = false;

  Runtime& rt_;
  std::atomic<bool> may_block_{false};
  mutable std::mutex blocked_mutex_;
  std::vector<Entry> blocked_;
};

}  // namespace joule::engine
