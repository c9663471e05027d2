// Creating and submitting tasks (the task lifecycle room,
// task_lifecycle.hpp), and the throttle that keeps a creator from running
// far ahead of the workers.
#include <algorithm>
#include <chrono>
#include <limits>
#include <string>
#include <thread>

#include "commutative.hpp"
#include "dep_domain.hpp"
#include "idle_spin.hpp"
#include "perturb.hpp"
#include "runtime.hpp"
#include "task_pool.hpp"

namespace joule::engine {

using namespace joule::core;
namespace {

[[noreturn]] void invalid(const std::string& msg) { throw joule::error(JOULE_ERR_INVALID, msg); }

// Swaps the registration guard for the real edge count; true if ready now.
// Without edges no other thread can touch preds: a plain store will do.
bool drop_guard(Task* t) {
  if (t->pred_edges == 0) {
    t->preds.store(0, std::memory_order_relaxed);
    return true;
  }
  const std::int32_t delta = t->pred_edges - kPredBias;
  return t->preds.fetch_add(delta, std::memory_order_acq_rel) + delta == 0;
}

}  // namespace

Task* TaskLifecycle::create(joule_task_fn_t fn, std::size_t args_size, std::size_t args_align,
                            const task_options& opts) {
  if (!fn) invalid("joule: task body is null");
  if (args_align == 0 || (args_align & (args_align - 1)) != 0)
    invalid("joule: argument alignment " + std::to_string(args_align) + " is not a power of two");
  // No object is larger than PTRDIFF_MAX, and below it the task header and
  // the alignment padding cannot wrap size_t (into a small block).
  constexpr auto kMaxArgs = std::size_t(std::numeric_limits<std::ptrdiff_t>::max());
  if (args_size > kMaxArgs || args_align > kMaxArgs / 2)
    invalid("joule: an argument block of " + std::to_string(args_size) + " bytes (alignment " +
            std::to_string(args_align) + ") is larger than any object can be");
  ThreadContext& ctx = rt_.context();
  Task* t = TaskPool::make_task(ctx.pool, args_size, args_align);
  t->fn = fn;
  t->id = ++ctx.next_id;
  t->parent = ctx.current;
  t->label = opts.label;
  t->priority = opts.priority;
  t->cost = opts.cost;
  t->affinity = opts.affinity;
  // Descendants of a final task are final too: they all run inline.
  if (opts.final || t->parent->has(task_flag::final)) t->flags |= task_flag::final;
  t->flags |= t->parent->flags & task_flag::serial;
  if (!opts.if_) {
    t->flags |= task_flag::undeferred;
    t->creator_runs = true;
    t->runner.store(ctx.slot,
                    std::memory_order_relaxed);  // the predecessor that makes it ready wakes us
  }
  return t;
}

namespace {

// The checks of one dependency, in order, with their messages: off the hot
// path (add_one tests them all at once first, and a reduction with an
// operator comes here too), so that add_one stays small.
[[gnu::cold, gnu::noinline]] void check_dep(const Task* t, int kind, std::uintptr_t start,
                                            std::size_t bytes, const joule_reduction_op_t* op) {
  if (kind < JOULE_DEP_IN || kind > JOULE_DEP_REDUCTION)
    invalid("joule: unknown dependency kind " + std::to_string(kind) +
            "; allowed: in, out, inout, commutative, concurrent, reduction");
  if (bytes > std::numeric_limits<std::uintptr_t>::max() - start)
    invalid("joule: dependency region at " + std::to_string(start) + " of " +
            std::to_string(bytes) + " bytes overflows the address space");
  if (t->has(task_flag::submitted)) invalid("joule: dependency added after submit");
  if (kind == JOULE_DEP_REDUCTION && op && (!op->init || !op->combine))
    invalid("joule: reduction operator without init or combine function");
  // Each private copy is as large as the region (ReductionSlot::make_copy).
  if (kind == JOULE_DEP_REDUCTION && op &&
      bytes > std::size_t(std::numeric_limits<std::ptrdiff_t>::max()))
    invalid("joule: a reduction region of " + std::to_string(bytes) +
            " bytes is larger than any object can be");
}

}  // namespace

// One dependency's checks (they throw), then the layer that watches what
// host tasks name, if one does (TaskHook), inline tasks too.
[[gnu::always_inline]] inline void TaskLifecycle::vet(Task* t, int kind, const void* addr,
                                                      std::size_t bytes,
                                                      const joule_reduction_op_t* op,
                                                      bool watched) {
  const auto start = reinterpret_cast<std::uintptr_t>(addr);
  if (unsigned(kind - JOULE_DEP_IN) > unsigned(JOULE_DEP_REDUCTION - JOULE_DEP_IN) ||
      bytes > std::numeric_limits<std::uintptr_t>::max() - start || t->has(task_flag::submitted) ||
      (kind == JOULE_DEP_REDUCTION && op)) [[unlikely]]
    check_dep(t, kind, start, bytes, op);
  if (watched) hook_->on_dependency(*t, kind, addr, bytes);
}

// The domain of a parent's first child with dependencies: the one this
// worker kept from its last parent (domain_cache.hpp), else one another
// worker kept (the next parent may run elsewhere: an OpenMP `single` goes
// to whichever member arrives first), else a new one.
[[gnu::noinline]] DepDomain* TaskLifecycle::new_domain(Task* parent) {
  Worker* const mine = rt_.context().worker;
  if (!mine) return new DepDomain(parent);
  if (DepDomain* d = mine->domains().take(parent)) return d;
  const Workforce& all = rt_.workers();
  for (int i = 0, n = all.count(); i < n; ++i) {
    Worker* w = all.worker(i);
    if (w && w != mine)
      if (DepDomain* d = w->domains().take(parent)) return d;
  }
  return new DepDomain(parent);
}

// Registers a vetted dependency of a task that is not included. mixed:
// DepDomain::mix(addr), or 0 when not computed yet (the mix of address 0
// is 0 too).
[[gnu::always_inline]] inline void TaskLifecycle::track(Task* t, int kind, const void* addr,
                                                        std::size_t bytes,
                                                        const joule_reduction_op_t* op,
                                                        std::uint64_t mixed) {
  // A reduction without an operator updates in place, in any order: commutative.
  auto k = static_cast<DepKind>(kind);
  if (k == DepKind::reduction && !op) k = DepKind::commutative;
  Task* parent = t->parent;
  if (!parent->domain) [[unlikely]]
    parent->domain = new_domain(parent);
  t->flags |= task_flag::tracked;
  if (numa_active_ && t->data_home.load(std::memory_order_relaxed) == -1)
    numa_->prefer_data_node(t, addr);
  const auto start = reinterpret_cast<std::uintptr_t>(addr);
  if (mixed == 0) mixed = DepDomain::mix(start);
  parent->domain->add(t, k, start, start + bytes, k == DepKind::reduction ? op : nullptr, mixed);
}

void TaskLifecycle::add_dep(Task* t, int kind, const void* addr, std::size_t bytes,
                            const joule_reduction_op_t* op) {
  vet(t, kind, addr, bytes, op, hook_ && hook_->engaged());
  if (included(t)) return;  // run inline, in order: nothing to track
  track(t, kind, addr, bytes, op, 0);
}

// A task's dependencies at once: whether a layer watches them and whether
// the task runs inline are asked once, their index lookups overlap
// (prefetch), and each address is mixed once for the prefetch and the
// lookup. Each is vetted and registered before the next, as by add_dep.
template <class Dep>
void TaskLifecycle::add_dep_list(Task* t, const Dep* deps, std::size_t n) {
  const bool watched = hook_ && hook_->engaged();
  if (included(t)) {  // run inline, in order: nothing to track
    for (std::size_t i = 0; i < n; ++i)
      vet(t, static_cast<int>(deps[i].kind), deps[i].addr, deps[i].bytes, deps[i].reduction,
          watched);
    return;
  }
  constexpr std::size_t kBatch = 8;  // longer lists mix twice
  std::uint64_t mixed[kBatch];
  const DepDomain* d = t->parent->domain;
  const bool batch = n > 1 && n <= kBatch && d;
  if (batch) {
    for (std::size_t i = 0; i < n; ++i) {
      mixed[i] = DepDomain::mix(reinterpret_cast<std::uintptr_t>(deps[i].addr));
      d->prefetch_mixed(mixed[i]);
    }
  } else if (n > 1 && d) {
    for (std::size_t i = 0; i < n; ++i) d->prefetch(reinterpret_cast<std::uintptr_t>(deps[i].addr));
  }
  for (std::size_t i = 0; i < n; ++i) {
    const int kind = static_cast<int>(deps[i].kind);
    vet(t, kind, deps[i].addr, deps[i].bytes, deps[i].reduction, watched);
    track(t, kind, deps[i].addr, deps[i].bytes, deps[i].reduction, batch ? mixed[i] : 0);
  }
}
template void TaskLifecycle::add_dep_list(Task*, const joule::dep*, std::size_t);
template void TaskLifecycle::add_dep_list(Task*, const joule_dep_t*, std::size_t);

// What every submission path records: the flag, the parent's child count,
// the creation count and the observers. Inlined on this file's hot paths
// (the attribute still leaves a copy for submit_pinned).
[[gnu::always_inline]] void TaskLifecycle::note_submitted(Task* t, ThreadContext& ctx) {
  t->flags |= task_flag::submitted;
  Task* parent = t->parent;  // only this thread runs the parent's body
  parent->spawned.store(parent->spawned.load(std::memory_order_relaxed) + 1,
                        std::memory_order_relaxed);
  count_created(ctx);
  if (observed_)
    for (auto& o : *observers_) o->on_task_submit(*t, ctx.worker ? ctx.worker->index() : -1);
}

void TaskLifecycle::submit(Task* t) {
  ThreadContext& ctx = rt_.context();
  note_submitted(t, ctx);
  if (included(t)) {
    t->preds.store(0, std::memory_order_relaxed);
    execute(t, ctx);
    return;
  }
  if (t->has(task_flag::undeferred)) {
    wait_ready_and_run(t, ctx);
    return;
  }
  if (drop_guard(t) && !(numa_active_ && numa_->routed_to_node(t, ctx)))
    make_ready(&t, 1, ctx, false);
  if (throttle_tasks_ > 0 && ++ctx.creations >= ctx.throttle_every) throttle(ctx);
}

// For language layers (team members of libjoule-omp): tasks without
// dependencies are queued round-robin on the other workers' queues, so that
// idle workers take them at once from their own queue instead of stealing
// from the caller's; anything else takes the ordinary path. The caller's
// private slots are never used: the tasks must be free to start elsewhere.
void TaskLifecycle::submit_spread(Task* const* tasks, int n) {
  ThreadContext& ctx = rt_.context();
  const int me = ctx.worker ? ctx.worker->index() : -1;
  const int workers = std::max(rt_.workers().count(), 1);
  int target = me;
  int pushed = 0;
  std::uint64_t woken = 0;  // targets woken so far (the first 64)
  for (int i = 0; i < n; ++i) {
    Task* t = tasks[i];
    if (included(t) || t->has(task_flag::undeferred) || t->pred_edges != 0) {
      submit(t);
      continue;
    }
    note_submitted(t, ctx);
    if (!drop_guard(t)) continue;  // cannot happen without edges; kept for symmetry
    target = (target + 1) % workers;
    if (target == me && workers > 1) target = (target + 1) % workers;
    scheduler_->push_for(t, target);
    ++pushed;
    JOULE_PERTURB_POINT(team_spawn);
    // The task waits on that worker's queue: wake that worker if it sleeps
    // and no wake is on its way to it yet, else another sleeper. An awake
    // target may take another member of this team first (stolen before its
    // own worker woke) and then block in it until the whole team has
    // started; a worker that went to sleep before this push would then
    // never come for the task (sleeps have no time limit), and the team
    // would wait forever. Each member needs a worker of its own, so a wake
    // must bring one more: a sleeper another wake already claimed comes
    // once for both (the hang the perturbation sweep found at 32 workers,
    // docs/internals-sleep-wake-checks.md).
    if (target >= 64 || !(woken & (std::uint64_t(1) << target))) {
      if (target < 64) woken |= std::uint64_t(1) << target;
      if (!idle_->wake_worker(target)) idle_->wake_one(target);
    }
  }
  flush_private(ctx);
  if (pushed == 0) return;
  if (lending_) lending_bridge_->maybe_acquire();
}

void TaskLifecycle::discard(Task* t) {
  if (t->has(task_flag::hooked)) {
    hook_->on_discard(*t);
    t->flags &= std::uint16_t(~task_flag::hooked);
  }
  // Dependencies may already be registered: the task still has to pass
  // through the graph, just without a body.
  t->fn = nullptr;
  submit(t);
}

void TaskLifecycle::wait_ready_and_run(Task* t, ThreadContext& ctx) {
  if (!drop_guard(t)) {
    // Its predecessors are the current task's children (siblings of t), so
    // a wait restricted to the current task's descendants still sees them.
    WaitNote note(ctx, "the dependencies of an undeferred task", t);
    rt_.waits().help_until(
        ctx, [t] { return t->preds.load(std::memory_order_acquire) == 0; }, ctx.current.get());
  }
  if (!t->tokens.empty()) {
    // The creator must run it itself, so it cannot park: retry, helping.
    std::vector<Task*> wake;
    while (!acquire_tokens(t, wake, false)) {
      if (!wake.empty()) make_ready(wake.data(), int(wake.size()), ctx, false);
      wake.clear();
      if (!run_one(ctx)) cpu_relax();
    }
    if (!wake.empty()) make_ready(wake.data(), int(wake.size()), ctx, false);
    t->tokens_held = true;
  }
  execute(t, ctx);
}

void TaskLifecycle::count_created(ThreadContext& ctx) noexcept {
  if (ctx.worker)
    ctx.worker->count_created();
  else
    external_created_.fetch_add(1, std::memory_order_relaxed);
}

std::int64_t TaskLifecycle::in_flight() const noexcept {
  std::uint64_t created = external_created_.load(std::memory_order_relaxed);
  std::uint64_t completed = external_completed_.load(std::memory_order_relaxed);
  const Workforce& workers = rt_.workers();
  for (int i = 0, n = workers.count(); i < n; ++i) {
    created += workers.worker(i)->created();
    completed += workers.worker(i)->completed();
  }
  return std::int64_t(created - completed);
}

// Too many tasks in flight: the creator runs ready work instead of creating
// more, until half the budget is free. The count sums every worker's
// counters; with room for N more tasks, the next check is N/2 creations
// away (at least 64), so a creator far below the limit pays it rarely, not
// every 64 tasks.
//
// Once a task-aware layer is present (PollingServices::layer) the limit is
// lower: what it serves (TAMPI's polling task, the tasks that post and
// complete MPI requests) runs while the program creates, not after it. With one
// worker per rank, a main that created its whole run first (100000 tasks)
// let the other ranks run ahead, and MPI's matching queues grew to tens of
// thousands of unexpected messages (docs/configuration-core.md).
void TaskLifecycle::throttle(ThreadContext& ctx) {
  ctx.creations = 0;
  std::int64_t limit = throttle_tasks_;
  // The next check is at most half that limit away: a layer that comes
  // later is seen in time.
  std::int64_t most = 1 << 20;
  if (throttle_polling_ > 0) {
    most = std::max<std::int64_t>(64, std::min(limit, throttle_polling_) / 2);
    if (rt_.polling().layer()) limit = std::min(limit, throttle_polling_);
  }
  const std::int64_t now = in_flight();
  ctx.throttle_every = std::uint32_t(std::clamp<std::int64_t>((limit - now) / 2, 64, most));
  if (now <= limit) return;
  const bool was_in_loop = ctx.in_loop;
  ctx.in_loop = true;
  wait_for_room(ctx, limit / 2);
  ctx.in_loop = was_in_loop;
  if (!was_in_loop) flush_private(ctx);
}

// Runs ready tasks while more than `target` are in flight. When none is
// ready for this thread (a dependency chain: its tasks wait for each
// other, not for this thread), it waits for other threads to complete
// some, as long as completions come: a creator whose tasks wait for
// something only it will do later (an event it fulfils, a task it has yet
// to create) must not wait for them, so 100 ms without a completion ends
// the wait.
void TaskLifecycle::wait_for_room(ThreadContext& ctx, std::int64_t target) {
  constexpr auto kStall = std::chrono::milliseconds(100);
  std::uint64_t seen = completed_total();
  auto progress_at = std::chrono::steady_clock::now();
  int idle_rounds = 0;
  while (in_flight() > target && !rt_.stopping()) {
    if (run_one(ctx)) {
      idle_rounds = 0;
      continue;
    }
    // What the tasks in flight wait for may be what a service completes (a
    // task-aware MPI request); with one worker nobody else polls.
    rt_.polling().poll_if_active();
    if (run_one(ctx)) continue;
    const std::uint64_t done = completed_total();
    const auto t = std::chrono::steady_clock::now();
    if (done != seen) {
      seen = done, progress_at = t;
    } else if (t - progress_at > kStall) {
      return;
    }
    // Short pauses first (a chain of short tasks), then sleeps; sleeps at
    // once while yields hand the CPU to another program (idle_spin.hpp).
    if (++idle_rounds >= 64 || !yield_if_it_pays())
      std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

std::uint64_t TaskLifecycle::completed_total() const noexcept {
  std::uint64_t completed = external_completed_.load(std::memory_order_relaxed);
  const Workforce& workers = rt_.workers();
  for (int i = 0, n = workers.count(); i < n; ++i) completed += workers.worker(i)->completed();
  return completed;
}

bool TaskLifecycle::in_final() {
  const ThreadContext& ctx = rt_.context();
  return ctx.current && ctx.current->has(task_flag::final);
}

// A task without dependencies that only `worker` may run (submit's steps,
// with the pinned list for a queue).
void TaskLifecycle::submit_pinned(Task* t, int worker, ThreadContext& ctx) {
  note_submitted(t, ctx);
  t->preds.store(0, std::memory_order_relaxed);
  scheduler_->push_pinned(t, worker);
  idle_->wake(&idle_->worker_slot(worker));
}

}  // namespace joule::engine
