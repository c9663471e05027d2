// Creating, submitting, running and completing tasks: the hot path.
#include <algorithm>
#include <chrono>
#include <limits>
#include <thread>
#include <vector>

#include "commutative.hpp"
#include "dep_domain.hpp"
#include "idle_spin.hpp"
#include "reduction_slot.hpp"
#include "runtime.hpp"
#include "stack_segments.hpp"

namespace joule::engine {

using namespace joule::core;
namespace {

[[noreturn]] void invalid(const std::string& msg) { throw joule::error(JOULE_ERR_INVALID, msg); }

// Runs inline at submit, in creation order, with no dependency tracking:
// below a final task, or when the runtime runs everything inline.
bool included(const Task* t) {
  return t->parent && t->parent->has(task_flag::final | task_flag::serial);
}

constexpr int kBatch = 16;

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

Task* Runtime::create(joule_task_fn_t fn, std::size_t args_size, std::size_t args_align,
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
  ThreadContext& ctx = context();
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
    t->runner = ctx.slot;  // the predecessor that makes it ready wakes us
  }
  return t;
}

void Runtime::add_dep(Task* t, int kind, const void* addr, std::size_t bytes,
                      const joule_reduction_op_t* op) {
  if (kind < JOULE_DEP_IN || kind > JOULE_DEP_REDUCTION)
    invalid("joule: unknown dependency kind " + std::to_string(kind) +
            "; allowed: in, out, inout, commutative, concurrent, reduction");
  const auto start = reinterpret_cast<std::uintptr_t>(addr);
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
  if (included(t)) return;  // run inline, in order: nothing to track
  // A reduction without an operator updates in place, in any order: commutative.
  auto k = static_cast<DepKind>(kind);
  if (k == DepKind::reduction && !op) k = DepKind::commutative;
  Task* parent = t->parent;
  if (!parent->domain) parent->domain = new DepDomain();
  t->flags |= task_flag::tracked;
  if (nodes_.active() && t->data_home.load(std::memory_order_relaxed) == -1)
    prefer_data_node(t, addr);
  parent->domain->add(t, k, start, start + bytes, k == DepKind::reduction ? op : nullptr);
}

void Runtime::prefetch_dep(const Task* t, const void* addr) const noexcept {
  if (const DepDomain* d = t->parent->domain) d->prefetch(reinterpret_cast<std::uintptr_t>(addr));
}

// What every submission path records: the flag, the parent's child count,
// the creation count and the observers. Inlined on this file's hot paths
// (the attribute still leaves a copy for numa_ops.cpp).
[[gnu::always_inline]] void Runtime::note_submitted(Task* t, ThreadContext& ctx) {
  t->flags |= task_flag::submitted;
  Task* parent = t->parent;  // only this thread runs the parent's body
  parent->spawned.store(parent->spawned.load(std::memory_order_relaxed) + 1,
                        std::memory_order_relaxed);
  count_created(ctx);
  if (observed_)
    for (auto& o : observers_) o->on_task_submit(*t, ctx.worker ? ctx.worker->index() : -1);
}

void Runtime::submit(Task* t) {
  ThreadContext& ctx = context();
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
  if (drop_guard(t) && !(nodes_.active() && routed_to_node(t, ctx))) make_ready(&t, 1, ctx, false);
  if (settings_.throttle_tasks > 0 && ++ctx.creations >= ctx.throttle_every) throttle(ctx);
}

// For language layers (team members of libjoule-omp): tasks without
// dependencies are queued round-robin on the other workers' queues, so that
// idle workers take them at once from their own queue instead of stealing
// from the caller's; anything else takes the ordinary path. The caller's
// private slots are never used: the tasks must be free to start elsewhere.
void Runtime::submit_spread(Task* const* tasks, int n) {
  ThreadContext& ctx = context();
  const int me = ctx.worker ? ctx.worker->index() : -1;
  const int workers = std::max(worker_count(), 1);
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
    // The task waits on that worker's queue: wake that worker if it sleeps,
    // else another sleeper. An awake target may take another member of this
    // team first (stolen before its own worker woke) and then block in it
    // until the whole team has started; a worker that went to sleep before
    // this push would then never come for the task (sleeps have no time
    // limit), and the team would wait forever.
    if (target >= 64 || !(woken & (std::uint64_t(1) << target))) {
      if (target < 64) woken |= std::uint64_t(1) << target;
      WaitSlot* slot = &idle_->worker_slot(target);
      if (slot->sleeping.load(std::memory_order_seq_cst))
        idle_->wake(slot);
      else
        idle_->wake_one(target);
    }
  }
  flush_private(ctx);
  if (pushed == 0) return;
  if (lending_) maybe_acquire();
}

void Runtime::discard(Task* t) {
  // Dependencies may already be registered: the task still has to pass
  // through the graph, just without a body.
  t->fn = nullptr;
  submit(t);
}

void Runtime::wait_ready_and_run(Task* t, ThreadContext& ctx) {
  if (!drop_guard(t))
    help_until(
        ctx, [t] { return t->preds.load(std::memory_order_acquire) == 0; }, nullptr);
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

// This thread stops looking for work. found: it is about to run a task (or
// leaves a wait a push woke it for); if it was the last one looking and
// more work is queued, the next sleeper takes over the looking (Idle).
void Runtime::end_search(ThreadContext& ctx, bool found) noexcept {
  ctx.searching = false;
  if (!idle_->end_search() || !found || idle_->sleepers() == 0) return;
  const int me = ctx.worker ? ctx.worker->index() : -1;
  if (scheduler_->available_to(me) > 0) idle_->wake_one(me);
}

bool Runtime::run_one(ThreadContext& ctx) {
  Task* t = ctx.next;
  if (t) {
    ctx.next = nullptr;
  } else {
    const int me = ctx.worker ? ctx.worker->index() : -1;
    bool stole = false;
    t = scheduler_->pop(me, &stole);
    if (!t) return false;
    // A steal may have brought more tasks to this worker's deque: another
    // sleeper can take some (wake-ups spread with the work, one per steal).
    if (stole && me >= 0 && idle_->sleepers() > 0 && scheduler_->size_of(me) > 0)
      idle_->wake_one(me);
  }
  if (ctx.searching) end_search(ctx, true);
  if (ctx.held_parent && ctx.held_parent != t->parent) flush_held(ctx);
  execute(t, ctx);
  return true;
}

bool Runtime::run_one_within(ThreadContext& ctx, Task* waiter, std::vector<Task*>& deferred) {
  Task* t = ctx.next;
  if (t)
    ctx.next = nullptr;
  else
    t = scheduler_->pop(ctx.worker ? ctx.worker->index() : -1);
  if (!t) {
    // Never sit on others' tasks while waiting: another thread (perhaps
    // also deep in a taskwait) may need exactly those.
    return_deferred(deferred);
    return false;
  }
  for (Task* p = t->parent; p; p = p->parent) {
    if (p == waiter) {
      execute(t, ctx);
      return true;
    }
  }
  deferred.push_back(t);  // ready, but not ours to run this deep: back at exit
  return true;
}

// Tasks a thread deep in nested taskwaits may not run go back to the queue
// with a wake that does not count that thread as looking for work: it would
// only take them again (and defer them again), while the sleeper that can
// run them slept on with no time limit (idle.hpp): a livelock seen under
// TSan in unit_nesting, one thread deferring fib's tasks round and round.
void Runtime::return_deferred(std::vector<Task*>& deferred) {
  if (deferred.empty()) return;
  const int n = int(deferred.size());
  if (affinity_.pinned()) {
    push_pinned_and_wake(deferred.data(), n, -1);  // wakes every owner
  } else {
    scheduler_->push_many(deferred.data(), n, -1);
    for (int i = 0; i < n && idle_->wake_one(-1); ++i) {
    }
  }
  deferred.clear();
}

// Leaving a scheduling loop: the immediate successor goes back to the queue.
void Runtime::flush_private(ThreadContext& ctx) {
  if (!ctx.next) return;
  Task* t = ctx.next;
  ctx.next = nullptr;
  const int me = ctx.worker ? ctx.worker->index() : -1;
  push_and_wake(&t, 1, me);
}

void Runtime::execute(Task* t, ThreadContext& ctx) {
  if (!t->tokens.empty() && !t->tokens_held) {
    std::vector<Task*> wake;
    const bool got = acquire_tokens(t, wake, true);
    if (!wake.empty()) make_ready(wake.data(), int(wake.size()), ctx, false);
    if (!got) return;  // parked; the token's holder re-queues it
  }
  Task* saved = ctx.current;
  ctx.current = t;
  t->runner = ctx.slot;  // before any child exists: see Task::runner
  if (observed_) {
    run_observed(t, ctx);
  } else if (t->fn) {
    run_body(t);
  }
  ctx.current = saved;
  const std::int64_t body_done = t->spawned.load(std::memory_order_relaxed) - kBodyBias;
  if (t->pending.fetch_add(body_done, std::memory_order_acq_rel) + body_done == 0) complete(t, ctx);
}

void Runtime::run_body(Task* t) {
  // Nested too deep for this stack: the body runs on a fresh segment.
  if (StackSegments::low()) {
    struct Call {
      Runtime* rt;
      Task* t;
    } call{this, t};
    StackSegments::run(
        [](void* p) {
          auto* c = static_cast<Call*>(p);
          c->rt->run_body_here(c->t);
        },
        &call);
    return;
  }
  run_body_here(t);
}

void Runtime::run_body_here(Task* t) noexcept {
  try {
    t->fn(t->args);
  } catch (...) {
    record_exception(t->parent, std::current_exception(), 0);
  }
}

void Runtime::run_observed(Task* t, ThreadContext& ctx) {
  const int worker = ctx.worker ? ctx.worker->index() : -1;
  const std::uint64_t start = now_ns();
  for (auto& o : observers_) o->on_task_start(*t, worker, start);
  if (t->fn) run_body(t);
  const std::uint64_t end = now_ns();
  for (auto& o : observers_) o->on_task_end(*t, worker, start, end);
}

// Body and all descendants are done: release successors and tell the parent.
// Iterative, because the parent may complete in turn.
void Runtime::complete(Task* t, ThreadContext& ctx) {
  while (t) t = finish(t, ctx);
}

// One task's completion; returns its parent when that completes now too.
Task* Runtime::finish(Task* t, ThreadContext& ctx) {
  if (!t->tokens.empty()) {
    std::vector<Task*> wake;
    release_tokens(t, wake);
    if (!wake.empty()) make_ready(wake.data(), int(wake.size()), ctx, true);
  }
  if (t->domain) {
    delete t->domain;  // folds the children's open reductions
    t->domain = nullptr;
  }
  // Before the successors: the last member of a closed group folds it.
  for (ReductionMember* m = t->reductions; m; m = m->next) m->slot->leave();
  if (t->has(task_flag::tracked)) release_successors(t, ctx);

  Task* parent = t->parent;
  if (t->exception) record_exception(parent, t->exception, t->suppressed);
  count_completed(ctx);
  release(t);
  if (hold_child(parent, ctx)) return nullptr;
  return settle_children(parent, 1);
}

// Subtracts n finished children from the parent's count; returns the
// parent when that was the last thing it waited for (its body returned).
Task* Runtime::settle_children(Task* parent, std::int64_t n) noexcept {
  // After the decrement the parent may finish and be freed on another
  // thread: it is not touched again unless this was its last reference.
  WaitSlot* waiter = parent->runner;
  const std::int64_t left = parent->pending.fetch_sub(n, std::memory_order_seq_cst) - n;
  if (left == 0) return parent;
  // The parent sleeps in taskwait and these were its last children: wake
  // the thread running its body. The seq_cst decrement pairs with the
  // sleeper's registration in Idle.
  if (left == kWaitBase) idle_->wake(waiter);
  return nullptr;
}

// A worker between tasks (its loop's top level, not inside a body or a
// wait) keeps the count of the children of one parent it finished, and
// subtracts them in one update when it turns to a task of another parent
// or to idling (flush_held): one atomic on the parent's contended line per
// run of siblings instead of one per child. Holding never delays the
// parent beyond a sibling this worker runs meanwhile, which the parent
// waits for anyway; the parent stays alive while its count is held.
bool Runtime::hold_child(Task* parent, ThreadContext& ctx) {
  if (!ctx.may_hold || ctx.current != ctx.root) return false;
  if (ctx.held_parent == parent) {
    ++ctx.held;
    return true;
  }
  flush_held(ctx);
  ctx.held_parent = parent;
  ctx.held = 1;
  return true;
}

void Runtime::flush_held(ThreadContext& ctx) {
  Task* parent = ctx.held_parent;
  if (!parent) return;
  const std::int64_t n = ctx.held;
  ctx.held_parent = nullptr;
  ctx.held = 0;
  if (n > 1 && ctx.worker) ctx.worker->count_folded(std::uint64_t(n - 1));
  Task* done = settle_children(parent, n);
  if (!done) return;
  // The ancestors this completes are settled at once: holding a
  // grandparent's count here would leave it held when the caller idles.
  const bool could_hold = ctx.may_hold;
  ctx.may_hold = false;
  complete(done, ctx);
  ctx.may_hold = could_hold;
}

// Publishes that t finished (a task registered later will not wait for it)
// and queues the successors whose last predecessor it was.
void Runtime::release_successors(Task* t, ThreadContext& ctx) {
  t->lock.lock();
  t->finished.store(true, std::memory_order_release);
  SmallVector<Task*, 4> successors(std::move(t->successors));
  t->lock.unlock();

  Task* ready[kBatch];
  int n = 0;
  // Only a policy that follows data reads data_home: the others are spared
  // the store to another line of the successor.
  const int me = follows_data_ && ctx.worker ? ctx.worker->index() : -1;
  for (Task* tagged : successors) {
    Task* s = untag(tagged);
    // Published to whoever queues s by the acq_rel decrement below.
    if (tagged != s && me >= 0) s->data_home.store(std::int16_t(me), std::memory_order_relaxed);
    const bool creator_runs = s->creator_runs;  // s is not ours to touch after the decrement
    WaitSlot* creator = s->runner;
    if (s->preds.fetch_sub(1, std::memory_order_seq_cst) != 1) continue;
    if (creator_runs) {
      idle_->wake(creator);  // its creator is waiting for it (and may free it at once)
      continue;
    }
    if (nodes_.active() && routed_to_node(s, ctx)) continue;
    ready[n++] = s;
    if (n == kBatch) {
      make_ready(ready, n, ctx, true);
      n = 0;
    }
  }
  if (n) make_ready(ready, n, ctx, true);
}

// A pinned keyed task (iterative energy policy) belongs to its key's worker;
// under a policy that follows data, a task belongs where its data was written.
bool Runtime::elsewhere(const Task* t, const ThreadContext& ctx) const noexcept {
  if (!ctx.worker) return false;
  const int me = ctx.worker->index();
  if (t->affinity != JOULE_NO_AFFINITY && affinity_.pinned()) {
    int owner = affinity_.worker_of(t->affinity);
    if (owner < 0) owner = affinity_.spread(t->affinity, owned_workers_);
    return owner != me;
  }
  if (!follows_data_) return false;
  const int home = t->data_home.load(std::memory_order_relaxed);
  return home >= 0 && home != me;
}

// Undeferred tasks never come here: their creator runs them, and the
// predecessor that makes one ready wakes the creator (release_successors);
// they never park on a commutative token (acquire_tokens without parking).
void Runtime::make_ready(Task** tasks, int n, ThreadContext& ctx, bool released) {
  int first = 0;
  int pushed = 0;
  for (int i = 0; i < n; ++i) {
    if (released && ctx.in_loop && !ctx.next && queue_settings_.immediate_successor &&
        !elsewhere(tasks[i], ctx)) {
      ctx.next = tasks[i];
      continue;
    }
    tasks[first + pushed++] = tasks[i];
  }
  if (pushed == 0) return;
  push_and_wake(tasks + first, pushed, ctx.worker ? ctx.worker->index() : -1);
  if (lending_) maybe_acquire();
}

// Queues the tasks and wakes for them: one wake for the lot, and none while
// a worker looks for work (Idle); the woken worker wakes the next when it
// finds more than it takes. With more workers than CPUs a looker may be
// waiting for the very CPU the pusher holds, so there each task wakes a
// sleeper, as long as any sleeps. A pinned task wakes its owner, who alone
// may run it: owners are read before the push, since a queued task may run
// and be freed at once.
[[gnu::always_inline]] void Runtime::push_and_wake(Task* const* tasks, int n, int pusher) {
  if (affinity_.pinned()) return push_pinned_and_wake(tasks, n, pusher);
  if (n == 1)
    scheduler_->push(tasks[0], pusher);
  else
    scheduler_->push_many(tasks, n, pusher);
  if (!oversubscribed_) {
    idle_->wake_for_push(pusher);
    return;
  }
  for (int i = 0; i < n && idle_->wake_one(pusher); ++i) {
  }
}

void Runtime::push_pinned_and_wake(Task* const* tasks, int n, int pusher) {
  SmallVector<int, kBatch> owners;
  for (int i = 0; i < n; ++i) owners.push_back(scheduler_->pinned_owner(tasks[i]));
  scheduler_->push_many(tasks, n, pusher);
  for (int owner : owners) {
    if (owner >= 0)
      idle_->wake(&idle_->worker_slot(owner));
    else
      idle_->wake_one(pusher);
  }
}

void Runtime::record_exception(Task* parent, std::exception_ptr e, std::uint32_t suppressed) {
  parent->lock.lock();
  if (!parent->exception)
    parent->exception = std::move(e);
  else
    ++parent->suppressed;
  parent->suppressed += suppressed;
  parent->lock.unlock();
}

void Runtime::count_created(ThreadContext& ctx) noexcept {
  if (ctx.worker)
    ctx.worker->count_created();
  else
    external_created_.fetch_add(1, std::memory_order_relaxed);
}

void Runtime::count_completed(ThreadContext& ctx) noexcept {
  if (ctx.worker)
    ctx.worker->count_completed();
  else
    external_completed_.fetch_add(1, std::memory_order_relaxed);
}

std::int64_t Runtime::in_flight() const noexcept {
  std::uint64_t created = external_created_.load(std::memory_order_relaxed);
  std::uint64_t completed = external_completed_.load(std::memory_order_relaxed);
  for (int i = 0, n = worker_count(); i < n; ++i) {
    created += worker(i)->created();
    completed += worker(i)->completed();
  }
  return std::int64_t(created - completed);
}

// Too many tasks in flight: the creator runs ready work instead of creating
// more, until half the budget is free. The count sums every worker's
// counters; with room for N more tasks, the next check is N/2 creations
// away (at least 64), so a creator far below the limit pays it rarely, not
// every 64 tasks.
void Runtime::throttle(ThreadContext& ctx) {
  ctx.creations = 0;
  const std::int64_t limit = settings_.throttle_tasks;
  const std::int64_t now = in_flight();
  ctx.throttle_every = std::uint32_t(std::clamp<std::int64_t>((limit - now) / 2, 64, 1 << 20));
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
void Runtime::wait_for_room(ThreadContext& ctx, std::int64_t target) {
  constexpr auto kStall = std::chrono::milliseconds(100);
  std::uint64_t seen = completed_total();
  auto progress_at = std::chrono::steady_clock::now();
  int idle_rounds = 0;
  while (in_flight() > target && !stopping()) {
    if (run_one(ctx)) {
      idle_rounds = 0;
      continue;
    }
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

std::uint64_t Runtime::completed_total() const noexcept {
  std::uint64_t completed = external_completed_.load(std::memory_order_relaxed);
  for (int i = 0, n = worker_count(); i < n; ++i) completed += worker(i)->completed();
  return completed;
}

}  // namespace joule::engine
