// The task entry points of the LLVM runtime ABI (kmpc_task.cpp holds the
// blocks): creation, dependencies, if(0) tasks, waits, taskgroups, detach.
#include <algorithm>
#include <array>
#include <cstdlib>
#include <vector>

#include "kmpc_task.hpp"
#include "kmpc_taskred.hpp"
#include "ompt.hpp"
#include "task_inline.hpp"

namespace joule::omp::kmp {
namespace {

// kmp_depend_info flags: in 1, out 2 (inout: both), mutexinoutset 4, inoutset 8;
// the first of mutexinoutset, inoutset, out that is set decides, else in.
// A table: one load per dependency, and a loop the compiler leaves scalar.
constexpr std::array<std::uint8_t, 16> kKinds = [] {
  std::array<std::uint8_t, 16> k{};
  for (unsigned f = 0; f < 16; ++f)
    k[f] = (f & 4)   ? JOULE_DEP_COMMUTATIVE
           : (f & 8) ? JOULE_DEP_CONCURRENT
           : (f & 2) ? JOULE_DEP_INOUT
                     : JOULE_DEP_IN;
  return k;
}();
inline int dep_kind(std::uint8_t f) { return kKinds[f & 15]; }

// The dependencies of a deferred task: by address, as GOMP's (task_depend.cpp).
inline std::size_t to_joule(std::int32_t count, const DependInfo* d, joule_dep_t* out) {
  for (std::int32_t i = 0; i < count; ++i)
    out[i] = joule_dep_t{dep_kind(d[i].flags), reinterpret_cast<const void*>(d[i].base_addr), 1,
                         nullptr};
  return count > 0 ? std::size_t(count) : 0;
}

// Both lists as joule dependencies, by address as GOMP's (task_depend.cpp);
// `wait`: for a wait, where every kind but in waits for all before it.
struct Deps {
  joule_dep_t small[16];
  std::vector<joule_dep_t> big;
  joule_dep_t* list = small;
  std::size_t n = 0;

  Deps(std::int32_t n1, const DependInfo* d1, std::int32_t n2, const DependInfo* d2, bool wait) {
    const std::size_t total = std::size_t(std::max(n1, 0) + std::max(n2, 0));
    if (total > 16) {
      big.resize(total);
      list = big.data();
    }
    add(n1, d1, wait);
    add(n2, d2, wait);
  }
  void add(std::int32_t count, const DependInfo* d, bool wait) {
    for (std::int32_t i = 0; i < count; ++i) {
      int kind = dep_kind(d[i].flags);
      if (wait && kind != JOULE_DEP_IN) kind = JOULE_DEP_INOUT;
      list[n++] = joule_dep_t{kind, reinterpret_cast<const void*>(d[i].base_addr), 1, nullptr};
    }
  }
};

// The dependencies of the last __kmpc_omp_wait_deps since the last task
// allocation: an if(0) task's, which clang passes there, not to the task.
// Plain data, initial-exec: every allocation clears it.
struct If0Deps {
  joule_dep_t* list;
  std::size_t n, cap;
};
[[gnu::tls_model("initial-exec")]] constinit thread_local If0Deps t_if0_deps{};

void keep_if0_deps(const Deps& d) {
  If0Deps& k = t_if0_deps;
  if (d.n > k.cap) {
    auto* grown = static_cast<joule_dep_t*>(std::realloc(k.list, d.n * sizeof(joule_dep_t)));
    if (!grown) unsupported("__kmpc_omp_wait_deps (out of memory)");
    k.list = grown;
    k.cap = d.n;
  }
  std::copy(d.list, d.list + d.n, k.list);
  k.n = d.n;
}

// The if(0) tasks this thread runs now, innermost last: the creator's state
// around each body, and a detachable one's dependencies.
struct If0Frame {
  InlineSaved saved;
  std::vector<joule_dep_t>* deps;
};
struct If0Stack {
  If0Frame* items;
  int n, cap;
};
[[gnu::tls_model("initial-exec")]] constinit thread_local If0Stack t_if0{};

If0Frame& if0_push() {
  If0Stack& k = t_if0;
  if (k.n == k.cap) {
    k.cap = k.cap ? 2 * k.cap : 16;
    auto* grown =
        static_cast<If0Frame*>(std::realloc(k.items, std::size_t(k.cap) * sizeof(If0Frame)));
    if (!grown) unsupported("__kmpc_omp_task_begin_if0 (out of memory)");
    k.items = grown;
  }
  return k.items[k.n++];
}

void wait_on(const Deps& d) {
  if (d.n == 0 || self().in_final) return;
  SeatAway away;
  joule_taskwait_on(d.list, d.n);
}

// A task run at once waits for its dependencies first (as an if(0) task),
// with every kind but in as inout: nothing created before it that it
// depends on is still running, and what comes later finds it done.
[[gnu::noinline]] void task_with_deps(Prefix* p, std::int32_t n, DependInfo* deps,
                                      std::int32_t n_noalias, DependInfo* noalias) {
  // Like GOMP_task (task.cpp), a task with dependencies is deferred unless
  // it is included, and never asks the throttle: run at once it would wait
  // for its predecessors (a graph of such tasks would run one task at a
  // time on its creator), and asking would spend the inline budget that the
  // creator's next tasks without dependencies run on (task_throttle.cpp).
  if (p->mode == Mode::kPlain || p->mode == Mode::kOpen) {
    if (n + n_noalias > 0 && !self().in_final)
      p->mode = Mode::kDeferred;
    else
      resolve_now(p);
  }
  const bool now = p->mode == Mode::kInline;
  const Deps d(n, deps, n_noalias, noalias, now);
  if (now) {
    wait_on(d);
    if (ompt::on()) ompt::next_inline_deps(d.list, d.n);
    run_now(p);
  } else {
    task_submit(p, d.list, d.n);
  }
}

// Dependencies a deferred task's list takes without a vector (the bulk).
constexpr std::int32_t kFewDeps = 16;

}  // namespace
}  // namespace joule::omp::kmp

using namespace joule::omp;
using namespace joule::omp::kmp;

extern "C" {

JOULE_EXPORT void* __kmpc_omp_task_alloc(Ident*, std::int32_t, std::int32_t flags,
                                         std::size_t task_size, std::size_t shareds_size,
                                         Routine entry) {
  t_if0_deps.n = 0;
  return task_alloc_plain(flags, task_size, shareds_size, entry);
}

// A target task without a device runs on the host: an ordinary task.
JOULE_EXPORT void* __kmpc_omp_target_task_alloc(Ident*, std::int32_t, std::int32_t flags,
                                                std::size_t task_size, std::size_t shareds_size,
                                                Routine entry, std::int64_t) {
  return task_of(task_alloc(flags, task_size, shareds_size, entry));
}

// The bulk, a task deferred for its few dependencies (outside a final
// task), goes straight to task_submit: task_with_deps's decision and list.
JOULE_EXPORT std::int32_t __kmpc_omp_task_with_deps(Ident*, std::int32_t, void* task,
                                                    std::int32_t n, DependInfo* deps,
                                                    std::int32_t n_noalias, DependInfo* noalias) {
  Prefix* p = prefix_of(task);
  const std::int32_t total = std::max(n, 0) + std::max(n_noalias, 0);
  if ((p->mode == Mode::kPlain || p->mode == Mode::kOpen) && total > 0 && total <= kFewDeps &&
      !self().in_final) [[likely]] {
    p->mode = Mode::kDeferred;
    joule_dep_t list[kFewDeps];
    const std::size_t k = to_joule(n, deps, list);
    task_submit(p, list, k + to_joule(n_noalias, noalias, list + k));
    return 0;
  }
  task_with_deps(p, n, deps, n_noalias, noalias);
  return 0;
}

// if(0) with depend, and taskwait depend.
JOULE_EXPORT void __kmpc_omp_wait_deps(Ident*, std::int32_t, std::int32_t n, DependInfo* deps,
                                       std::int32_t n_noalias, DependInfo* noalias) {
  wait_on(Deps(n, deps, n_noalias, noalias, true));
  keep_if0_deps(Deps(n, deps, n_noalias, noalias, false));
}

JOULE_EXPORT void __kmpc_omp_task_begin_if0(Ident*, std::int32_t, void* task) {
  Prefix* p = prefix_of(task);
  const If0Deps& k = t_if0_deps;
  If0Frame& f = if0_push();
  f.deps = p->event && k.n ? new std::vector<joule_dep_t>(k.list, k.list + k.n) : nullptr;
  if (ompt::on()) ompt::next_inline_deps(k.list, k.n);
  t_if0_deps.n = 0;
  f.saved = inline_enter((p->flags & 0x2) != 0, p);
  if (ompt::on()) ompt::inline_begin((p->flags & 0x2) != 0);
}

JOULE_EXPORT void __kmpc_omp_task_complete_if0(Ident*, std::int32_t, void* task) {
  Prefix* p = prefix_of(task);
  if (p->flags & 0x8) task_of(p)->data1(gtid(), task_of(p));  // destructors
  If0Stack& k = t_if0;
  if (k.n == 0) unsupported("__kmpc_omp_task_complete_if0 without __kmpc_omp_task_begin_if0");
  const If0Frame f = k.items[--k.n];
  if (ompt::on()) ompt::inline_end();
  inline_leave(f.saved);
  task_done_now(p, f.deps);
}

JOULE_EXPORT std::int32_t __kmpc_omp_taskwait(Ident*, std::int32_t) {
  taskwait();
  return 0;
}

// Untied tasks are tied here (as GOMP_taskyield): nothing to switch to.
JOULE_EXPORT std::int32_t __kmpc_omp_taskyield(Ident*, std::int32_t, std::int32_t) { return 0; }

JOULE_EXPORT void __kmpc_taskgroup(Ident*, std::int32_t) {
  taskgroup_open();
  taskgroup_begin();
}
JOULE_EXPORT void __kmpc_end_taskgroup(Ident*, std::int32_t) {
  taskgroup_close();
  taskgroup_end();
}

JOULE_EXPORT void* __kmpc_task_allow_completion_event(Ident*, std::int32_t, void* task) {
  const std::uint64_t ev = event_create();
  task_set_event(prefix_of(task), ev);
  return reinterpret_cast<void*>(ev);
}

}  // extern "C"
