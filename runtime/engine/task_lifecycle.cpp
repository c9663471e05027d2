// Running and completing tasks, and making them ready: the hot path of
// the task lifecycle room (task_lifecycle.hpp). Creation and submission
// are in task_submit.cpp.
#include <algorithm>
#include <utility>
#include <vector>

#include "commutative.hpp"
#include "dep_domain.hpp"
#include "perturb.hpp"
#include "reduction_slot.hpp"
#include "runtime.hpp"
#include "stack_segments.hpp"
#include "task_pool.hpp"

namespace joule::engine {

using namespace joule::core;
namespace {

constexpr int kBatch = 16;  // tasks one release or push keeps on the stack
const TaskHook* g_hook = nullptr;

}  // namespace

void set_task_hook(const TaskHook* hook) noexcept { g_hook = hook; }
const TaskHook* task_hook() noexcept { return g_hook; }

void TaskLifecycle::wire() {
  scheduler_ = &rt_.scheduler();
  idle_ = &rt_.idle();
  numa_ = &rt_.numa();
  lending_bridge_ = &rt_.lending();
  affinity_ = &rt_.affinity();
  observers_ = &rt_.observers();
  hook_ = task_hook();
  owned_workers_ = rt_.workers().owned();
  throttle_tasks_ = rt_.settings().throttle_tasks;
  throttle_polling_ = rt_.settings().throttle_polling_tasks;
  observed_ = rt_.observed();
  lending_ = lending_bridge_->lends();
  follows_data_ = scheduler_->follows_data();
  newest_first_ = scheduler_->newest_first();
  oversubscribed_ = rt_.oversubscribed();
  immediate_successor_ = rt_.queue_settings().immediate_successor;
  numa_active_ = numa_->active();
}

// This thread stops looking for work. found: it is about to run a task (or
// leaves a wait a push woke it for); if it was the last one looking and
// more work is queued, the next sleeper takes over the looking (Idle).
void TaskLifecycle::end_search(ThreadContext& ctx, bool found) noexcept {
  ctx.searching = false;
  if (!idle_->end_search() || !found || idle_->sleepers() == 0) return;
  const int me = ctx.worker ? ctx.worker->index() : -1;
  if (scheduler_->available_to(me) > 0) idle_->wake_one(me);
}

bool TaskLifecycle::run_one(ThreadContext& ctx) {
  Task* t = ctx.next;
  if (t) {
    ctx.next = nullptr;
  } else {
    const int me = ctx.worker ? ctx.worker->index() : -1;
    bool stole = false;
    t = scheduler_->pop(me, &stole);
    if (!t) return false;
    JOULE_PERTURB_POINT(pop);
    if (stole) JOULE_PERTURB_POINT(steal);
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

bool TaskLifecycle::run_one_within(ThreadContext& ctx, Task* waiter, std::vector<Task*>& deferred) {
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
      // Others' tasks go back first: t may block or wait for long, and one
      // of them may be what ends that (TAMPI's polling task, held here
      // while the task it would unblock slept, hung TAMPI's blocking tests).
      return_deferred(deferred);
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
void TaskLifecycle::return_deferred(std::vector<Task*>& deferred) {
  if (deferred.empty()) return;
  const int n = int(deferred.size());
  if (affinity_->pinned()) {
    push_pinned_and_wake(deferred.data(), n, -1);  // wakes every owner
  } else {
    scheduler_->push_many(deferred.data(), n, -1);
    JOULE_PERTURB_POINT(push);
    // Workers only: an external thread deferring these may be the one woken.
    for (int i = 0; i < n && idle_->wake_one(-1, false); ++i) {
    }
  }
  deferred.clear();
}

// Leaving a scheduling loop: the immediate successor goes back to the queue.
void TaskLifecycle::flush_private(ThreadContext& ctx) {
  if (!ctx.next) return;
  Task* t = ctx.next;
  ctx.next = nullptr;
  const int me = ctx.worker ? ctx.worker->index() : -1;
  push_and_wake(&t, 1, me);
}

void TaskLifecycle::execute(Task* t, ThreadContext& ctx) {
  if (!t->tokens.empty() && !t->tokens_held) {
    std::vector<Task*> wake;
    const bool got = acquire_tokens(t, wake, true);
    if (!wake.empty()) make_ready(wake.data(), int(wake.size()), ctx, false);
    if (!got) return;  // parked; the token's holder re-queues it
  }
  Task* saved = ctx.current;
  ctx.current = t;
  t->runner.store(ctx.slot,
                  std::memory_order_relaxed);  // before any child exists: see Task::runner
  if (observed_) {
    run_observed(t, ctx);
  } else if (t->fn) {
    run_body(t);
  }
  ctx.current = saved;
  // Suspended (ALPI): the body's count stays open and it runs again later.
  if (t->suspended) [[unlikely]]
    return rt_.blocking().resubmit(t, ctx);
  end_body(t, ctx);
}

void TaskLifecycle::end_body(Task* t, ThreadContext& ctx) {
  const std::int64_t body_done = t->spawned.load(std::memory_order_relaxed) - kBodyBias;
  if (t->pending.fetch_add(body_done, std::memory_order_acq_rel) + body_done == 0) complete(t, ctx);
}

void TaskLifecycle::requeue(Task* t, ThreadContext& ctx) {
  push_and_wake(&t, 1, ctx.worker ? ctx.worker->index() : -1);
}

void TaskLifecycle::run_body(Task* t) {
  // Nested too deep for this stack: the body runs on a fresh segment.
  if (StackSegments::low()) {
    struct Call {
      TaskLifecycle* rt;
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

void TaskLifecycle::run_body_here(Task* t) noexcept {
  try {
    // A layer above asked to act first (TaskHook: data back from a device).
    if (t->has(task_flag::hooked)) [[unlikely]]
      hook_->before_body(*t);
    t->fn(t->args);
  } catch (...) {
    record_exception(t->parent, std::current_exception(), 0);
  }
}

void TaskLifecycle::run_observed(Task* t, ThreadContext& ctx) {
  const int worker = ctx.worker ? ctx.worker->index() : -1;
  const std::uint64_t start = now_ns();
  for (auto& o : *observers_) o->on_task_start(*t, worker, start);
  if (t->fn) run_body(t);
  const std::uint64_t end = now_ns();
  for (auto& o : *observers_) o->on_task_end(*t, worker, start, end);
}

// Body and all descendants are done: release successors and tell the parent.
// Iterative, because the parent may complete in turn.
void TaskLifecycle::complete(Task* t, ThreadContext& ctx) {
  while (t) t = finish(t, ctx);
}

// One task's completion; returns its parent when that completes now too.
Task* TaskLifecycle::finish(Task* t, ThreadContext& ctx) {
  if (!t->tokens.empty()) {
    std::vector<Task*> wake;
    release_tokens(t, wake);
    if (!wake.empty()) make_ready(wake.data(), int(wake.size()), ctx, true);
  }
  // Folds the children's open reductions, and is kept for this worker's
  // next parent (domain_cache.hpp).
  if (DepDomain* d = std::exchange(t->domain, nullptr)) {
    if (ctx.worker)
      ctx.worker->domains().give(d);
    else
      delete d;
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
Task* TaskLifecycle::settle_children(Task* parent, std::int64_t n) noexcept {
  // After the decrement the parent may finish and be freed on another
  // thread: it is not touched again unless this was its last reference.
  WaitSlot* waiter = parent->runner.load(std::memory_order_relaxed);
  JOULE_PERTURB_POINT(complete);
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
bool TaskLifecycle::hold_child(Task* parent, ThreadContext& ctx) {
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

void TaskLifecycle::flush_held(ThreadContext& ctx) {
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
void TaskLifecycle::release_successors(Task* t, ThreadContext& ctx) {
  t->lock.lock();
  t->finished.store(true, std::memory_order_release);
  SmallVector<Task*, 4> successors(std::move(t->successors));
  t->lock.unlock();

  SmallVector<Task*, kBatch> ready;
  // Only a policy that follows data reads data_home: the others are spared
  // the store to another line of the successor.
  const int me = follows_data_ && ctx.worker ? ctx.worker->index() : -1;
  for (Task* tagged : successors) {
    Task* s = untag(tagged);
    // Published to whoever queues s by the acq_rel decrement below.
    if (tagged != s && me >= 0) s->data_home.store(std::int16_t(me), std::memory_order_relaxed);
    const bool creator_runs = s->creator_runs;  // s is not ours to touch after the decrement
    WaitSlot* creator = s->runner.load(std::memory_order_relaxed);
    if (s->preds.fetch_sub(1, std::memory_order_seq_cst) != 1) continue;
    if (creator_runs) {
      idle_->wake(creator);  // its creator is waiting for it (and may free it at once)
      continue;
    }
    if (numa_active_ && numa_->routed_to_node(s, ctx)) continue;
    ready.push_back(s);
  }
  if (!ready.empty()) make_ready(ready.begin(), int(ready.size()), ctx, true);
}

// A pinned keyed task (iterative energy policy) belongs to its key's worker;
// under a policy that follows data, a task belongs where its data was written.
bool TaskLifecycle::elsewhere(const Task* t, const ThreadContext& ctx) const noexcept {
  if (!ctx.worker) return false;
  const int me = ctx.worker->index();
  if (t->affinity != JOULE_NO_AFFINITY && affinity_->pinned()) {
    int owner = affinity_->worker_of(t->affinity);
    if (owner < 0) owner = affinity_->spread(t->affinity, owned_workers_);
    return owner != me;
  }
  if (!follows_data_) return false;
  const int home = t->data_home.load(std::memory_order_relaxed);
  return home >= 0 && home != me;
}

// Undeferred tasks never come here: their creator runs them, and the
// predecessor that makes one ready wakes the creator (release_successors);
// they never park on a commutative token (acquire_tokens without parking).
void TaskLifecycle::make_ready(Task** tasks, int n, ThreadContext& ctx, bool released) {
  int pushed = 0;
  for (int i = 0; i < n; ++i) {
    if (released && ctx.in_loop && !ctx.next && immediate_successor_ && !elsewhere(tasks[i], ctx)) {
      ctx.next = tasks[i];
      continue;
    }
    tasks[pushed++] = tasks[i];
  }
  if (pushed == 0) return;
  // Successors run in the order they were registered, the first one here
  // (the immediate successor): a program registers its critical path first
  // as a rule (a factorization's next panel before the trailing updates).
  if (released && newest_first_ && pushed > 1) std::reverse(tasks, tasks + pushed);
  const int me = ctx.worker ? ctx.worker->index() : -1;
  scheduler_->note_creating(me, !released);
  push_and_wake(tasks, pushed, me);
  if (lending_) lending_bridge_->maybe_acquire();
}

// Queues the tasks and wakes for them: one wake for the lot, and none while
// a worker looks for work (Idle); the woken worker wakes the next when it
// finds more than it takes. With more workers than CPUs a looker may be
// waiting for the very CPU the pusher holds, so there each task wakes a
// sleeper, as long as any sleeps. A pinned task wakes its owner, who alone
// may run it: owners are read before the push, since a queued task may run
// and be freed at once.
[[gnu::always_inline]] void TaskLifecycle::push_and_wake(Task* const* tasks, int n, int pusher) {
  if (affinity_->pinned()) return push_pinned_and_wake(tasks, n, pusher);
  if (n == 1)
    scheduler_->push(tasks[0], pusher);
  else
    scheduler_->push_many(tasks, n, pusher);
  JOULE_PERTURB_POINT(push);
  if (!oversubscribed_) {
    idle_->wake_for_push(pusher);
    return;
  }
  for (int i = 0; i < n && idle_->wake_one(pusher); ++i) {
  }
}

void TaskLifecycle::push_pinned_and_wake(Task* const* tasks, int n, int pusher) {
  SmallVector<int, kBatch> owners;
  for (int i = 0; i < n; ++i) owners.push_back(scheduler_->pinned_owner(tasks[i]));
  scheduler_->push_many(tasks, n, pusher);
  JOULE_PERTURB_POINT(push);
  for (int owner : owners) {
    if (owner >= 0)
      idle_->wake(&idle_->worker_slot(owner));
    else
      idle_->wake_one(pusher);
  }
}

void TaskLifecycle::record_exception(Task* parent, std::exception_ptr e, std::uint32_t suppressed) {
  parent->lock.lock();
  if (!parent->exception)
    parent->exception = std::move(e);
  else
    ++parent->suppressed;
  parent->suppressed += suppressed;
  parent->lock.unlock();
}

void TaskLifecycle::count_completed(ThreadContext& ctx) noexcept {
  if (ctx.worker)
    ctx.worker->count_completed();
  else
    external_completed_.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace joule::engine
