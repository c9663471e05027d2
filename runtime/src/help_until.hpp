// Runtime::help_until: the loop a thread runs while it waits for something
// (its children in taskwait, an undeferred task's dependencies). It runs
// ready tasks meanwhile, spins briefly, and then sleeps.
#pragma once

#include <chrono>

#include "runtime.hpp"

namespace joule::rt {

template <class Done>
void Runtime::sleep_while_waiting(ThreadContext& ctx, Done& done) {
  const int worker = ctx.worker ? ctx.worker->index() : -1;
  if (observed_)
    for (auto& o : observers_) o->on_idle(worker, true, now_ns());
  idle_.sleep_unless([&] { return done() || scheduler_->size() > 0; });
  if (observed_)
    for (auto& o : observers_) o->on_idle(worker, false, now_ns());
}

template <class Done>
void Runtime::help_until(ThreadContext& ctx, Done done, std::atomic<bool>* waiting_flag) {
  const bool was_in_loop = ctx.in_loop;
  ctx.in_loop = true;
  if (waiting_flag) waiting_flag->store(true, std::memory_order_seq_cst);
  const auto spin = std::chrono::microseconds(config_.workers.spin_us);
  while (!done()) {
    if (run_one(ctx)) continue;
    const auto deadline = std::chrono::steady_clock::now() + spin;
    bool progress = false;
    while (!progress && std::chrono::steady_clock::now() < deadline) {
      for (int i = 0; i < 64 && !progress; ++i) {
        cpu_relax();
        progress = done() || scheduler_->size() > 0;
      }
    }
    if (!progress) sleep_while_waiting(ctx, done);
  }
  if (waiting_flag) waiting_flag->store(false, std::memory_order_relaxed);
  ctx.in_loop = was_in_loop;
  if (!was_in_loop) flush_private(ctx);  // nobody here would run them
}

}  // namespace joule::rt
