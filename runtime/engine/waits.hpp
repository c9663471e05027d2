// The waits room: a thread that must wait (taskwait, taskwait on data, the
// end of a taskloop, a language layer's team barrier) keeps working: it runs
// ready tasks, spins briefly, then sleeps until what it waits for wakes it.
// Language layers (libjoule-omp) wait through here too, with their own
// condition, and wake the threads waiting here.
#pragma once

#include <cstdint>
#include <vector>

#include "joule/types.hpp"
#include "task.hpp"
#include "thread_context.hpp"
#include "wait_slot.hpp"

namespace joule::engine {

using namespace joule::core;

class Runtime;

class Waits {
 public:
  explicit Waits(Runtime& rt) : rt_(rt) {}

  // ---- the waits of the task API (waits.cpp) ----
  void taskwait();
  void taskwait_on(const joule::dep* deps, std::size_t n);
  // The chunks are children of an undeferred group task: the loop waits
  // for them alone (an implicit taskgroup).
  void taskloop(detail::loop_fn fn, void* arg, std::int64_t begin, std::int64_t end,
                std::int64_t grain, const task_options& opts);

  // ---- waiting on a condition (help_until.hpp) ----
  // Runs ready tasks (and sleeps when there are none) until done() holds.
  // `waiter`: the task whose children a taskwait waits for (bounds helping
  // depth); `watched`: a task whose body this thread runs and whose last
  // child should wake it (both null when neither applies). `poll_ns`: a
  // time limit for each sleep, for a condition nobody wakes this thread for
  // (0: none; lending polls anyway).
  template <class Done>
  void help_until(ThreadContext& ctx, Done done, Task* waiter, Task* watched = nullptr,
                  long poll_ns = 0);
  // The calling thread waits until done(arg) is non-zero; whoever makes it
  // so wakes the thread (wake, wake_all).
  void wait_until(int (*done)(void*), void* arg);

  // ---- for language layers (waits.cpp) ----
  // While *count > 0 this thread's waits run only the waiting task's
  // descendants (a task below holds a lock an unrelated task could want).
  void restrict_to_descendants(const int* count);
  WaitSlot* current_slot();  // where the calling thread sleeps
  void wake(WaitSlot* slot);
  void wake_all();

 private:
  template <class Done>
  void sleep_while_waiting(ThreadContext& ctx, Done& done, Task* watched, long poll_ns);
  template <class Done>
  void wait_off_seat(ThreadContext& ctx, Done& done, Task* watched);
  // A task's wait on this thread yields its CPU (JOULE_TASKWAIT): the
  // thread holds a seat to hand over, and the mode (or, auto, the program's
  // use of the blocking API) says so.
  bool yields_in_waits(const ThreadContext& ctx) const noexcept;

  Runtime& rt_;
};

}  // namespace joule::engine
