// The blocking room: tasks that wait for something outside the engine.
// The Nanos6 blocking and event API and ALPI (TAMPI uses both) come here:
// a task blocks until another thread unblocks it, holds its completion on
// external events, spawns independent tasks, and registers polling
// services that idle threads run (polling_services.hpp). The offload
// layers hold a task's completion until its device reports back.
//
// Blocking helps rather than suspends: a blocked task's thread runs other
// ready tasks (and the polling services) on the same stack until the task
// is unblocked, as taskwait does (Waits::help_until). A task picked up
// meanwhile that blocks in turn must be unblocked before the first one can
// return (docs/porting-ompss-semantics.md, "Blocking").
#pragma once

#include <cstdint>
#include <exception>
#include <mutex>
#include <vector>

#include "polling_services.hpp"
#include "task.hpp"

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
  // The task the calling thread runs, or null outside a task.
  Task* current_task();
  int current_worker();  // the calling thread's worker index, 0 if not a worker

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

  // ---- polling services ----
  void add_polling_service(const char* name, PollingServices::Fn fn, void* data);
  bool remove_polling_service(PollingServices::Fn fn, void* data);

  // The tasks blocked now, for the state dump (state_dump.cpp). A task
  // listed may be unblocked and gone by the time the caller reads it: only
  // the copied fields are safe.
  struct Blocked {
    std::uint64_t id;
    const char* label;
    std::uint64_t since_ns;
    int worker;  // -1: not a worker's thread
  };
  std::vector<Blocked> blocked_now() const;

 private:
  Runtime& rt_;
  mutable std::mutex blocked_mutex_;
  std::vector<std::pair<Task*, Blocked>> blocked_;
};

}  // namespace joule::engine
