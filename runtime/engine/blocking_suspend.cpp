// ALPI's suspend (blocking.hpp): a task marks itself suspended, and when
// its body returns it runs again instead of completing, at once, after a
// time, or once its events are 0 (the suspend modes of ALPI 1.1,
// `alpi_suspend_mode_t` in TAMPI's src/common/ALPI.hpp). TAMPI's polling
// task uses it to run every few microseconds without holding a thread.
//
// The body's return leaves the task's pending count open (execute skips
// the body's own term), so its children and events go on counting down
// and cannot complete it; the next run of the body adds its children as
// any body does, and the run that returns without suspending closes it.
#include <algorithm>

#include "runtime.hpp"

namespace joule::engine {

using namespace joule::core;

BlockResult Blocking::set_suspend_mode(Task* t, SuspendMode mode, std::uint64_t args) {
  Task* self = current_task();
  if (!self) return BlockResult::outside_task;
  if (t != self) return BlockResult::not_current;
  std::lock_guard guard(suspend_mutex_);
  for (auto& [id, m] : modes_)
    if (id == t->id) {
      m = {mode, args};
      return BlockResult::ok;
    }
  modes_.push_back({t->id, {mode, args}});
  return BlockResult::ok;
}

BlockResult Blocking::suspend(Task* t) {
  Task* self = current_task();
  if (!self) return BlockResult::outside_task;
  if (t != self) return BlockResult::not_current;
  // Inline and undeferred tasks are run by their creator, which returns
  // only once they completed: they cannot go back to a queue.
  if (t->has(task_flag::final | task_flag::serial | task_flag::root | task_flag::undeferred) ||
      TaskLifecycle::included(t))
    return BlockResult::runs_inline;
  t->suspended = true;
  return BlockResult::ok;
}

void Blocking::resubmit(Task* t, ThreadContext& ctx) {
  t->suspended = false;
  t->resumed = true;  // only read when its body runs again (Task::runner)
  SuspendMode mode = SuspendMode::none;
  std::uint64_t args = 0;
  {
    std::lock_guard guard(suspend_mutex_);
    auto it =
        std::find_if(modes_.begin(), modes_.end(), [t](const auto& m) { return m.first == t->id; });
    if (it != modes_.end()) {
      mode = it->second.first;
      args = it->second.second;
      *it = modes_.back();
      modes_.pop_back();
    }
  }
  TaskLifecycle& tasks = rt_.tasks();
  switch (mode) {
    case SuspendMode::none:  // nothing to do after suspending: it completes
      tasks.end_body(t, ctx);
      return;
    case SuspendMode::submit:  // args 1 asks to yield: queued behind others alike
      tasks.requeue(t, ctx);
      return;
    case SuspendMode::timeout_submit:
    case SuspendMode::event_submit:
      break;
  }
  bool start = false;
  {
    std::lock_guard guard(suspend_mutex_);
    const std::uint64_t now = now_ns();
    const std::uint64_t due =
        mode == SuspendMode::event_submit ? 0 : std::max<std::uint64_t>(now + args, 1);
    waiting_.push_back({t, due, note_of(t, now, -1)});
    start = !polling_waiting_;
    polling_waiting_ = true;
  }
  if (!start) return;
  // One sleeper wakes to take the polling services' short sleep; a wake of
  // every sleeper per suspension would cost a futex call each.
  rt_.polling().add("joule: suspended tasks", &Blocking::poll_suspended, this);
  rt_.idle().wake_one(-1);
}

// Puts back the tasks whose time came or whose events reached 0; done (and
// unregistered) once none waits. Its waits are as fine as the polling
// services' (polling_services.hpp).
int Blocking::poll_suspended(void* p) {
  auto* self = static_cast<Blocking*>(p);
  std::vector<Task*> due;
  bool done = false;
  {
    std::lock_guard guard(self->suspend_mutex_);
    const std::uint64_t now = now_ns();
    for (std::size_t i = 0; i < self->waiting_.size();) {
      const Waiting& w = self->waiting_[i];
      const bool ready =
          w.due_ns == 0 ? w.task->events.load(std::memory_order_acquire) == 0 : now >= w.due_ns;
      if (!ready) {
        ++i;
        continue;
      }
      due.push_back(w.task);
      self->waiting_[i] = self->waiting_.back();
      self->waiting_.pop_back();
    }
    if (self->waiting_.empty()) {
      self->polling_waiting_ = false;
      done = true;
    }
  }
  ThreadContext& ctx = self->rt_.context();
  for (Task* t : due) self->rt_.tasks().requeue(t, ctx);
  return done ? 1 : 0;
}

// A task in the list is alive: its pending count stays open until its
// body runs again and returns without suspending (resubmit). Its events
// are read there; the rest was copied when it was listed.
bool Blocking::suspended_now(std::vector<Suspended>& out) const {
  std::unique_lock guard(suspend_mutex_, std::defer_lock);
  if (!lock_for_dump(guard)) return false;
  for (const Waiting& w : waiting_)
    out.push_back({w.info, w.due_ns, w.task->events.load(std::memory_order_relaxed)});
  return true;
}

}  // namespace joule::engine
