// The waits room (waits.hpp): taskwait, taskwait on data, loops of tasks,
// and the waits of language layers.
#include <algorithm>
#include <string>

#include "dep_domain.hpp"
#include "log.hpp"
#include "perturb.hpp"
#include "runtime.hpp"

namespace joule::engine {

using namespace joule::core;
namespace {

void noop(void*) {}

struct LoopChunk {
  detail::loop_fn fn;
  void* arg;
  std::int64_t lo;
  std::int64_t hi;
};

void run_chunk(void* p) {
  auto* c = static_cast<LoopChunk*>(p);
  c->fn(c->arg, c->lo, c->hi);
}

}  // namespace

void Waits::taskwait() {
  ThreadContext& ctx = rt_.context();
  Task* self = ctx.current;
  WaitNote note(ctx, "its children (taskwait)", self);
  help_until(
      ctx,
      [self] {
        JOULE_PERTURB_POINT(taskwait);
        return self->children_done();
      },
      self, self);
  // Every child has finished: the domain's history orders nothing any more.
  if (self->domain) self->domain->reset();
  self->lock.lock();
  std::exception_ptr e = std::move(self->exception);
  self->exception = nullptr;
  const std::uint32_t dropped = self->suppressed;
  self->suppressed = 0;
  self->lock.unlock();
  if (!e) return;
  if (dropped)
    core::log_error(std::to_string(dropped) +
                    " further task exception(s) dropped at this taskwait");
  std::rethrow_exception(e);
}

// An empty undeferred task with the given dependencies: once it may run,
// every earlier sibling it depends on has finished.
void Waits::taskwait_on(const joule::dep* deps, std::size_t n) {
  task_options opts;
  opts.if_ = false;
  opts.label = "taskwait-on";
  TaskLifecycle& tasks = rt_.tasks();
  Task* t = tasks.create(&noop, 0, 16, opts);
  try {
    for (std::size_t i = 0; i < n; ++i) {
      // Waiting on reduced data waits for its final value: every member
      // and the fold, which an exclusive access after the group implies.
      const int kind = deps[i].kind == joule::dep_kind::reduction && deps[i].reduction
                           ? JOULE_DEP_INOUT
                           : static_cast<int>(deps[i].kind);
      tasks.add_dep(t, kind, deps[i].addr, deps[i].bytes);
    }
  } catch (...) {
    tasks.discard(t);
    throw;
  }
  tasks.submit(t);
}

// The chunks become children of an undeferred group task, so waiting for
// them does not wait for unrelated siblings (an implicit taskgroup).
void Waits::taskloop(detail::loop_fn fn, void* arg, std::int64_t begin, std::int64_t end,
                     std::int64_t grain, const task_options& opts) {
  if (!fn) throw joule::error(JOULE_ERR_INVALID, "joule: taskloop body is null");
  if (end <= begin) return;
  const auto count = static_cast<std::uint64_t>(end) - static_cast<std::uint64_t>(begin);
  if (grain <= 0)
    grain = std::int64_t(
        std::max<std::uint64_t>(1, count / (4 * std::uint64_t(rt_.workers().owned()))));
  struct Group {
    Runtime* rt;
    detail::loop_fn fn;
    void* arg;
    std::int64_t begin, end, grain;
    task_options opts;
    std::exception_ptr error;
  } g{&rt_, fn, arg, begin, end, grain, opts, nullptr};

  auto body = [](void* p) {
    Group& grp = **static_cast<Group**>(p);
    task_options chunk_opts = grp.opts;
    chunk_opts.if_ = true;
    for (std::int64_t lo = grp.begin; lo < grp.end;) {
      const auto left = static_cast<std::uint64_t>(grp.end) - static_cast<std::uint64_t>(lo);
      const std::int64_t hi = left <= std::uint64_t(grp.grain) ? grp.end : lo + grp.grain;
      Task* c =
          grp.rt->tasks().create(&run_chunk, sizeof(LoopChunk), alignof(LoopChunk), chunk_opts);
      *static_cast<LoopChunk*>(c->args) = {grp.fn, grp.arg, lo, hi};
      grp.rt->tasks().submit(c);
      lo = hi;
    }
    try {
      grp.rt->waits().taskwait();
    } catch (...) {
      grp.error = std::current_exception();
    }
  };
  task_options group_opts;
  group_opts.if_ = false;
  group_opts.label = opts.label;
  group_opts.final = opts.final;
  Task* t = rt_.tasks().create(body, sizeof(Group*), alignof(Group*), group_opts);
  *static_cast<Group**>(t->args) = &g;
  rt_.tasks().submit(t);
  if (g.error) std::rethrow_exception(g.error);
}

void Waits::wait_until(int (*done)(void*), void* arg) {
  ThreadContext& ctx = rt_.context();
  WaitNote note(ctx, "a language layer's condition (an OpenMP barrier, team or lock)", nullptr);
  help_until(
      ctx,
      [&] {
        JOULE_PERTURB_POINT(taskwait);
        return done(arg) != 0;
      },
      nullptr);
}

bool Waits::yields_in_waits(const ThreadContext& ctx) const noexcept {
  if (Spares::seat_of(ctx) < 0) return false;  // no CPU of its own to give
  switch (rt_.settings().taskwait) {
    case TaskwaitMode::help:
      return false;
    case TaskwaitMode::yield:
      return true;
    case TaskwaitMode::automatic:
      break;
  }
  return rt_.blocking().tasks_may_block();
}

void Waits::restrict_to_descendants(const int* count) { rt_.context().descendants_only = count; }

WaitSlot* Waits::current_slot() { return rt_.context().slot; }

void Waits::wake(WaitSlot* slot) { rt_.idle().wake(slot); }

void Waits::wake_all() { rt_.idle().wake_all(); }

}  // namespace joule::engine
