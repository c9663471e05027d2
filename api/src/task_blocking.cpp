#include "task_blocking.hpp"

#include <cstdlib>

namespace joule::api {

using joule::core::Task;
using joule::engine::Runtime;

namespace {
constexpr std::uint8_t kRunning = 0;
constexpr std::uint8_t kBlocked = 1;
constexpr std::uint8_t kUnblocked = 2;

// Run inline (the serial mode, below a final task): its creator waits in
// the spawn, so nothing it waits for can be created after it.
bool runs_inline(const Task* t) {
  return t->has(core::task_flag::serial) || (t->parent && t->parent->has(core::task_flag::final));
}
}  // namespace

Runtime& nanos6_runtime() {
  Runtime& rt = Runtime::get();
  if (rt.serial_inline()) rt.end_serial_inline();
  return rt;
}

Task* current_task() {
  Runtime& rt = nanos6_runtime();
  if (!Runtime::in_task()) return nullptr;
  return rt.context().current;
}

BlockResult block_task(Task* t) {
  Task* self = current_task();
  if (!self) return BlockResult::outside_task;
  if (t != self) return BlockResult::not_current;
  std::uint8_t state = kRunning;
  if (!t->blocking.compare_exchange_strong(state, kBlocked, std::memory_order_seq_cst)) {
    t->blocking.store(kRunning, std::memory_order_relaxed);  // unblocked first
    return BlockResult::ok;
  }
  Runtime& rt = Runtime::get();
  rt.help_until(
      rt.context(), [t] { return t->blocking.load(std::memory_order_acquire) == kUnblocked; },
      nullptr);
  t->blocking.store(kRunning, std::memory_order_relaxed);
  return BlockResult::ok;
}

void unblock_task(Task* t) {
  // Read before the exchange: once it is seen the task may return, finish
  // and be freed. The slot itself lives until the runtime stops.
  core::WaitSlot* runner = t->runner;
  if (t->blocking.exchange(kUnblocked, std::memory_order_seq_cst) == kBlocked)
    Runtime::get().idle().wake(runner);
}

BlockResult increase_events(Task* t, std::int64_t n) {
  Task* self = current_task();
  if (!self) return BlockResult::outside_task;
  if (t != self) return BlockResult::not_current;
  if (runs_inline(t) || !Runtime::get().hold_completion(t, n)) return BlockResult::runs_inline;
  t->events.fetch_add(std::int32_t(n), std::memory_order_relaxed);
  return BlockResult::ok;
}

bool decrease_events(Task* t, std::int64_t n) {
  std::int32_t have = t->events.load(std::memory_order_relaxed);
  do {
    if (have < n) return false;
  } while (!t->events.compare_exchange_weak(have, have - std::int32_t(n)));
  Runtime::get().release_hold(t, nullptr, n);  // may complete and free t
  return true;
}

namespace {
struct Spawned {
  void (*body)(void*);
  void* args;
  void (*done)(void*);
  void* done_args;
};

void run_body(void* p) {
  auto* s = static_cast<Spawned*>(p);
  s->body(s->args);
}

// The outer task runs the body as its child and waits for it, so the
// callback sees the body and every descendant completed.
void run_spawned(void* p) {
  auto* s = static_cast<Spawned*>(p);
  Runtime& rt = Runtime::get();
  Task* child = rt.create(&run_body, sizeof(Spawned), alignof(Spawned), task_options{});
  *static_cast<Spawned*>(child->args) = *s;
  rt.submit(child);
  rt.taskwait();
  if (s->done) s->done(s->done_args);
}
}  // namespace

void spawn_independent(void (*body)(void*), void* args, void (*done)(void*), void* done_args,
                       const char* label) {
  Runtime& rt = nanos6_runtime();
  engine::ThreadContext& ctx = rt.context();
  // A child of the thread's root, not of the calling task: the caller's
  // completion and taskwait do not wait for it.
  Task* saved = ctx.current;
  ctx.current = rt.spawn_root(ctx);
  task_options opts{};
  opts.label = label;
  Task* t = rt.create(&run_spawned, sizeof(Spawned), alignof(Spawned), opts);
  *static_cast<Spawned*>(t->args) = Spawned{body, args, done, done_args};
  rt.submit(t);
  ctx.current = saved;
}

}  // namespace joule::api
