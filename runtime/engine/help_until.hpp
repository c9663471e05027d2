// Waits::help_until: the loop a thread runs while it waits for something
// (its children in taskwait, an undeferred task's dependencies). It runs
// ready tasks meanwhile, spins briefly, and then sleeps.
#pragma once

#include <chrono>
#include <vector>

#include "adaptive_spin.hpp"
#include "idle_spin.hpp"
#include "runtime.hpp"
#include "task_pool.hpp"

namespace joule::engine {

using namespace joule::core;

// watched: the task whose children are awaited, when this thread runs its
// body; its last child then wakes this thread (Task::runner,
// Task::begin_sleep_wait). Otherwise the wake comes from the predecessor of
// an undeferred task, from a language layer (joule_wake_slot) or from a push
// (workers only); the sleep has no time limit unless lending must poll.
template <class Done>
void Waits::sleep_while_waiting(ThreadContext& ctx, Done& done, Task* watched, long poll_ns) {
  const int worker = ctx.worker ? ctx.worker->index() : -1;
  const bool observed = rt_.observed();
  if (observed)
    for (auto& o : rt_.observers()) o->on_idle(worker, true, now_ns());
  TaskPool::flush_remote_frees();
  // Chosen by an earlier push and found nothing: stop being counted as
  // looking before sleeping, or pushes would go on leaving sleepers alone.
  if (ctx.searching) rt_.tasks().end_search(ctx, false);
  bool chosen = false;
  // A resumed task's last child may wake its earlier run's thread instead
  // (Task::runner): its waits look again after a while.
  const long limit =
      rt_.lending().lends() || (watched && watched->resumed) ? Idle::kPollNs : poll_ns;
  Idle& idle = rt_.idle();
  queues::ReadyQueues& queues = rt_.scheduler();
  const PollingServices& polling = rt_.polling();
  // A resumed task waiting for this thread's seat wakes it (yield_seat).
  const auto wanted = [&ctx] {
    return ctx.seat_wanted && ctx.seat_wanted->load(std::memory_order_seq_cst);
  };
  if (watched) {
    const std::int64_t delta = watched->begin_sleep_wait();
    chosen = idle.sleep_unless(
        *ctx.slot,
        [&] { return watched->sleep_wait_done() || queues.available_to(worker) > 0 || wanted(); },
        polling.sleep_cap(limit));
    watched->end_sleep_wait(delta);
  } else {
    chosen = idle.sleep_unless(
        *ctx.slot, [&] { return done() || queues.available_to(worker) > 0 || wanted(); },
        polling.sleep_cap(limit));
  }
  // A push chose this thread for its task: it looks for work now, and if
  // the wait is over first, help_until hands the looking on (end_search).
  if (chosen) ctx.searching = true;
  if (observed)
    for (auto& o : rt_.observers()) o->on_idle(worker, false, now_ns());
}

// The thread gives its seat (its CPU) to a spare thread, which runs other
// tasks there, and sleeps until its wait is over; then it takes the seat
// back at the spare's next task boundary (spare_threads.hpp). Its children
// and predecessors wake the slot they read as this task's runner, which a
// spare may be sleeping on now: forward makes that wake reach this thread.
template <class Done>
void Waits::wait_off_seat(ThreadContext& ctx, Done& done, Task* watched) {
  rt_.workers().spares().sleep_off_seat(ctx, [&] {
    ctx.slot->forward.store(ctx.block_slot, std::memory_order_seq_cst);
    if (watched) {
      const std::int64_t delta = watched->begin_sleep_wait();
      // A resumed task's last child may wake its earlier run's slot instead
      // (Task::runner): look again after a while, as sleep_while_waiting does.
      const long limit = watched->resumed ? Idle::kPollNs : 0;
      while (!Spares::park_until(
          *ctx.block_slot, [watched] { return watched->sleep_wait_done(); }, limit)) {
      }
      watched->end_sleep_wait(delta);
    } else {
      Spares::park_until(*ctx.block_slot, done);
    }
    ctx.slot->forward.store(nullptr, std::memory_order_relaxed);
  });
}

// Beyond this many nested taskwaits on one stack, a waiting thread runs only
// the waiting task's own descendants: their dependencies never leave that
// subtree, so this cannot deadlock, and the stack stays bounded. The same
// restriction serves ThreadContext::descendants_only.
inline constexpr int kMaxHelpDepth = 32;

template <class Done>
void Waits::help_until(ThreadContext& ctx, Done done, Task* waiter, Task* watched, long poll_ns) {
  const bool was_in_loop = ctx.in_loop;
  ctx.in_loop = true;
  // A waiting thread counts every child at once: what it waits for may be
  // exactly such a count (TaskLifecycle::hold_child).
  TaskLifecycle& tasks = rt_.tasks();
  tasks.flush_held(ctx);
  const bool could_hold = ctx.may_hold;
  ctx.may_hold = false;
  if (waiter) ++ctx.help_depth;
  // Yielding (JOULE_TASKWAIT), the waiter's descendants alone run on this
  // stack, and with none ready the thread leaves its CPU to a spare: a task
  // that blocks never sits above a wait that is over.
  const bool yields = waiter && yields_in_waits(ctx);
  // The task whose descendants alone may run here, if any: yielding, deep
  // on the stack, or while a language layer asks (a task below holds a lock
  // that an unrelated task could want, and could then never get).
  const bool asked = ctx.descendants_only && *ctx.descendants_only > 0;
  Task* const within = waiter && (yields || ctx.help_depth > kMaxHelpDepth) ? waiter
                       : asked ? (waiter ? waiter : ctx.current.get())
                               : nullptr;
  const bool restricted = within != nullptr;
  std::vector<Task*> deferred;
  if (restricted) tasks.flush_private(ctx);
  // Threads that are not workers spin the fixed JOULE_SPIN_US.
  AdaptiveSpin fixed(rt_.settings().spin_us, 0);
  AdaptiveSpin& spin = ctx.worker ? ctx.worker->spin() : fixed;
  const int me = ctx.worker ? ctx.worker->index() : -1;
  LendingBridge& lending = rt_.lending();
  PollingServices& polling = rt_.polling();
  queues::ReadyQueues& queues = rt_.scheduler();
  while (!done()) {
    // A resumed task waits for this thread's CPU: it runs first, and this
    // wait asks for the CPU back once it is over (spare_threads.hpp).
    if (ctx.seat_wanted && ctx.seat_wanted->load(std::memory_order_relaxed)) [[unlikely]] {
      rt_.workers().spares().yield_seat(
          ctx, [](void* d) { return (*static_cast<Done*>(d))(); }, &done);
      continue;
    }
    // A waiting thread runs the polling services too: what it waits for may
    // be exactly what a service completes (a task-aware MPI request).
    polling.poll_if_active();
    if (done()) break;
    if (restricted ? tasks.run_one_within(ctx, within, deferred) : tasks.run_one(ctx)) {
      // A task boundary: queued work may borrow CPUs lent since it was
      // pushed, and a DROM mask applies even when no other worker is idle.
      if (lending.lends()) {
        lending.maybe_acquire();
        lending.poll_drom();
      }
      continue;
    }
    const auto start = std::chrono::steady_clock::now();
    if (yields) {
      // Ready tasks that are not the waiter's are the spare's to run.
      if (!spin_until([&] { return done(); }, start + spin.budget(), rt_.oversubscribed()))
        wait_off_seat(ctx, done, watched);
      continue;
    }
    const bool progress = spin_until([&] { return done() || queues.probe(me); },
                                     start + spin.budget(), rt_.oversubscribed());
    if (!progress) sleep_while_waiting(ctx, done, watched, poll_ns);
    spin.learn(std::chrono::steady_clock::now() - start, true);
  }
  if (waiter) --ctx.help_depth;
  ctx.may_hold = could_hold;
  if (ctx.searching) tasks.end_search(ctx, true);
  tasks.return_deferred(deferred);
  ctx.in_loop = was_in_loop;
  if (!was_in_loop) tasks.flush_private(ctx);  // nobody here would run them
}

}  // namespace joule::engine
