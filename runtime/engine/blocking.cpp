// The blocking room (blocking.hpp): blocked tasks, external events, holds
// on completion, independent spawns and polling services.
//
// Completion held by an external event: an offloaded task's body returns as
// soon as the device has its work, and the task completes (successors
// released, parent told) only when the device reports back. The hold is one
// extra child in the task's own counters, so the completion path is the
// ordinary one and nothing on the hot path of host tasks changes.
#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>

#include "runtime.hpp"

namespace joule::engine {

using namespace joule::core;
namespace {

constexpr std::uint8_t kRunning = 0;
constexpr std::uint8_t kBlocked = 1;
constexpr std::uint8_t kUnblocked = 2;

}  // namespace

Runtime& Blocking::runtime() {
  Runtime& rt = Runtime::get();
  rt.blocking().enter_api();
  return rt;
}

void Blocking::activate() noexcept {
  // A relaxed load first: every Nanos6/ALPI call comes here, and the mode
  // ends once; an exchange each time would be a locked RMW per call.
  TaskLifecycle& tasks = rt_.tasks();
  if (tasks.serial_inline() && tasks.end_serial_inline()) rt_.clear_serial_roots();
}

// The thread that started the runtime (worker 0) counts as running a task
// at its top level too: under OmpSs-2 main() is a task, and TAMPI blocks
// and waits from there (its root task is the handle).
Task* Blocking::current_task() {
  enter_api();
  if (Runtime::in_task()) return rt_.context().current;
  ThreadContext& ctx = rt_.context();
  if (ctx.root && ctx.worker && ctx.worker->index() == 0) return ctx.root;
  return nullptr;
}

// A relaxed load first, as in activate: every API call comes here.
void Blocking::enter_api() noexcept {
  activate();
  if (!may_block_.load(std::memory_order_relaxed))
    may_block_.store(true, std::memory_order_relaxed);
}

int Blocking::current_worker() { return Spares::seat_of(rt_.context()); }

BlockResult Blocking::block(Task* t) {
  Task* self = current_task();
  if (!self) return BlockResult::outside_task;
  if (t != self) return BlockResult::not_current;
  ThreadContext& ctx = rt_.context();
  if (!ctx.block_slot) ctx.block_slot = rt_.workers().spares().private_slot();
  // Listed before the block is visible: an unblocker that sees it blocked
  // finds where it sleeps here (unblock).
  {
    std::lock_guard guard(blocked_mutex_);
    blocked_.push_back({t, note_of(t, now_ns(), Spares::seat_of(ctx)), ctx.block_slot});
  }
  std::uint8_t state = kRunning;
  if (t->blocking.compare_exchange_strong(state, kBlocked, std::memory_order_seq_cst)) {
    sleep_blocked(t, ctx);
  }
  {
    std::lock_guard guard(blocked_mutex_);
    for (auto it = blocked_.begin(); it != blocked_.end(); ++it)
      if (it->task == t) {
        blocked_.erase(it);
        break;
      }
  }
  t->blocking.store(kRunning, std::memory_order_relaxed);
  return BlockResult::ok;
}

// The blocked task keeps this thread, asleep where no push looks; a spare
// takes its CPU meanwhile (spare_threads.hpp). Nothing this thread holds
// for later may wait with it: its immediate successor and its held child
// counts go out first.
void Blocking::sleep_blocked(Task* t, ThreadContext& ctx) {
  rt_.workers().spares().sleep_off_seat(ctx, [&] {
    WaitNote note(ctx, "an unblock (the task blocked through Nanos6 or ALPI)", t);
    Spares::park_until(*ctx.block_slot,
                       [t] { return t->blocking.load(std::memory_order_seq_cst) == kUnblocked; });
  });
}

void Blocking::unblock(Task* t) {
  if (t->blocking.exchange(kUnblocked, std::memory_order_seq_cst) != kBlocked) return;
  // Its thread sleeps (or is about to) on the slot it listed; it leaves the
  // list only after it saw the unblock, so a missing entry needs no wake.
  // The slot lives until the runtime stops.
  WaitSlot* slot = nullptr;
  {
    std::lock_guard guard(blocked_mutex_);
    for (const Entry& e : blocked_)
      if (e.task == t) slot = e.slot;
  }
  if (slot) Spares::unpark(*slot);
}

BlockResult Blocking::increase_events(Task* t, std::int64_t n) {
  Task* self = current_task();
  if (!self) return BlockResult::outside_task;
  if (t != self) return BlockResult::not_current;
  if (!hold_completion(t, n)) return BlockResult::runs_inline;
  t->events.fetch_add(std::int32_t(n), std::memory_order_relaxed);
  return BlockResult::ok;
}

bool Blocking::decrease_events(Task* t, std::int64_t n) {
  std::int32_t have = t->events.load(std::memory_order_relaxed);
  do {
    if (have < n) return false;
  } while (!t->events.compare_exchange_weak(have, have - std::int32_t(n)));
  release_hold(t, nullptr, n);  // may complete and free t
  return true;
}

// A timed block: the thread sleeps and a spare runs other tasks on its CPU
// meanwhile, so what it would have run cannot hold it past its time (TAMPI's
// polling task waits here between polls).
void Blocking::wait_for_ns(std::uint64_t ns) {
  ThreadContext& ctx = rt_.context();
  WaitNote note(ctx, "a time (alpi_task_waitfor_ns)", ctx.current);
  rt_.workers().spares().sleep_off_seat(ctx, [&] { Spares::park_for(*ctx.block_slot, ns); });
}

namespace {

struct Spawned {
  void (*body)(void*);
  void* args;
  void (*done)(void*);
  void* done_args;
};

// The body runs in the spawned task itself, then waits for that task's
// children and calls back. No task waits around it: a wrapper waiting for
// the body as a child could be picked up by another thread's helping wait
// and hold that wait as long as the body lives (TAMPI's polling task lives
// until MPI_Finalize). A suspended run (ALPI) returns at once: the callback
// comes after the last run. The wait runs only this task's descendants, so
// it never picks up an unrelated long-lived task either.
void run_spawned(void* p) {
  auto* s = static_cast<Spawned*>(p);
  s->body(s->args);
  Runtime& rt = Runtime::get();
  ThreadContext& ctx = rt.context();
  if (ctx.current->suspended) return;
  static const int kDescendantsOnly = 1;
  const int* saved = ctx.descendants_only;
  ctx.descendants_only = &kDescendantsOnly;
  try {
    rt.waits().taskwait();
  } catch (...) {
    ctx.descendants_only = saved;
    throw;
  }
  ctx.descendants_only = saved;
  if (s->done) s->done(s->done_args);
}

// A task-aware layer is present: throttle creators, and say once when the
// workers outnumber the CPUs (CpuBudget::seat_sharing_note).
void note_layer(Runtime& rt) {
  rt.polling().note_layer();
  static std::once_flag once;
  std::call_once(once, [&rt] {
    const std::string note = rt.cpu_budget().seat_sharing_note();
    if (!note.empty()) std::fputs(note.c_str(), stderr);
  });
}

}  // namespace

void Blocking::spawn_independent(void (*body)(void*), void* args, void (*done)(void*),
                                 void* done_args, const char* label) {
  enter_api();
  note_layer(rt_);  // the creators' throttle (TaskLifecycle::throttle)
  ThreadContext& ctx = rt_.context();
  // A child of the thread's root, not of the calling task: the caller's
  // completion and taskwait do not wait for it.
  Task* saved = ctx.current;
  ctx.current = rt_.spawn_root(ctx);
  task_options opts{};
  opts.label = label;
  Task* t = rt_.tasks().create(&run_spawned, sizeof(Spawned), alignof(Spawned), opts);
  *static_cast<Spawned*>(t->args) = Spawned{body, args, done, done_args};
  rt_.tasks().submit(t);
  ctx.current = saved;
}

bool Blocking::hold_completion(Task* t, std::int64_t n) noexcept {
  // Inline tasks (serial runtime, below a final task) are ordered by running
  // in creation order: their successors would not wait for the event.
  if (t->has(task_flag::final | task_flag::serial | task_flag::root)) return false;
  // Only the thread running t's body writes `spawned`, as for a real child.
  t->spawned.store(t->spawned.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  return true;
}

void Blocking::release_hold(Task* t, std::exception_ptr error, std::int64_t n) {
  TaskLifecycle& tasks = rt_.tasks();
  if (error) tasks.record_exception(t, std::move(error), 0);
  ThreadContext& ctx = rt_.context();
  const std::int64_t left = t->pending.fetch_sub(n, std::memory_order_seq_cst) - n;
  if (left == 0) tasks.complete(t, ctx);  // the body had returned: complete here
}

void Blocking::add_polling_service(const char* name, PollingServices::Fn fn, void* data) {
  rt_.polling().add(name, fn, data);
  note_layer(rt_);
  rt_.idle().wake_all();  // sleepers take the short sleep from now on
}

bool Blocking::remove_polling_service(PollingServices::Fn fn, void* data) {
  return rt_.polling().remove(fn, data);
}

Blocking::Blocked Blocking::note_of(const Task* t, std::uint64_t since_ns, int worker) {
  // The parent outlives t (t's completion is one of its pending children).
  const Task* p = t->parent;
  const bool top = !p || p->has(task_flag::root);
  return {t->id, t->label, since_ns, worker, top ? 0 : p->id, top ? nullptr : p->label};
}

bool Blocking::lock_for_dump(std::unique_lock<std::mutex>& guard) {
  for (int i = 0; i < 1000 && !guard.try_lock(); ++i) sched_yield();
  return guard.owns_lock();
}

bool Blocking::blocked_now(std::vector<Blocked>& out) const {
  std::unique_lock guard(blocked_mutex_, std::defer_lock);
  if (!lock_for_dump(guard)) return false;
  for (const Entry& e : blocked_) out.push_back(e.info);
  return true;
}

}  // namespace joule::engine
