// What the Nanos6 blocking/events API and ALPI share (nanos6_api.cpp,
// alpi_api.cpp): blocking a running task, unblocking it from any thread,
// external events that hold a task's completion, and independent tasks.
//
// Blocking helps rather than suspends: a blocked task's thread runs other
// ready tasks (and the polling services) on the same stack until the task
// is unblocked, as taskwait does (Runtime::help_until). A task picked up
// meanwhile that blocks in turn must be unblocked before the first one can
// return (docs/porting-ompss-semantics.md, "Blocking").
#pragma once

#include <cstdint>

#include "runtime.hpp"

namespace joule::api {

enum class BlockResult { ok, outside_task, not_current, runs_inline };

// The runtime, started if needed; every Nanos6/ALPI call goes through it
// and so ends the serial inline mode (blocking needs deferred tasks).
engine::Runtime& nanos6_runtime();
// The task the calling thread runs, or null outside a task.
core::Task* current_task();
// Blocks t, the calling thread's current task, until unblock(t); at once
// when an unblock came first.
BlockResult block_task(core::Task* t);
void unblock_task(core::Task* t);
// Events of t (the calling task); false when t is not the caller's task
// or runs inline (nothing could wait for its completion).
BlockResult increase_events(core::Task* t, std::int64_t n);
// From any thread; false when t has fewer than n events.
bool decrease_events(core::Task* t, std::int64_t n);
// body(args) as a task with no parent's dependencies; done(done_args)
// after it and its descendants completed.
void spawn_independent(void (*body)(void*), void* args, void (*done)(void*), void* done_args,
                       const char* label);

}  // namespace joule::api
