#include "dep_domain.hpp"
#include "task_pool.hpp"

#include <algorithm>
#include <mutex>
#include <new>
#include <tuple>
#include <utility>

#include "commutative.hpp"
#include "reduction_slot.hpp"
#include "trace_api.hpp"

namespace joule::engine {

using namespace joule::core;
namespace {

bool is_group_kind(DepKind k) {
  return k == DepKind::in || k == DepKind::concurrent || k == DepKind::commutative;
}

// add_edge, traced. An edge counts only if add_edge really added it (the
// predecessor had not finished and the edge is not a repeat), which shows as
// a new pred_edges: only the creating thread, this one, writes that field.
// Tracing off: one relaxed load and a predictable branch per edge.
void link(Task* pred, Task* succ, bool same_data = false) {
  if (!trace::enabled()) return add_edge(pred, succ, same_data);
  const std::int32_t before = succ->pred_edges;
  add_edge(pred, succ, same_data);
  if (succ->pred_edges == before) return;
  trace::emit_event(trace::Event::kEvDependencyFrom, pred->id);
  trace::emit_event(trace::Event::kEvDependency, succ->id);
}

}  // namespace

void DepDomain::add(Task* t, DepKind kind, std::uintptr_t start, std::uintptr_t end,
                    const joule_reduction_op_t* op, std::uint64_t mixed) {
  if (start >= end) return;  // an empty region orders nothing
  std::lock_guard guard(lock_);
  if (kind == DepKind::out) kind = DepKind::inout;  // both are exclusive writers
  // Most accesses name a region a sibling named exactly (one fragment).
  Fragment* at_start = by_start_.find_mixed(start, mixed);
  if (at_start && at_start->end == end && kind != DepKind::reduction) {
    Access a{kind};
    apply(*at_start, t, a);
    if (a.token) a.token->unref();  // the fragment and t hold their own refs
    return;
  }
  add_locked(t, kind, start, end, op, at_start, mixed);
}

// Any region: the fragments it covers, cut at its ends, and the gaps
// between them filled with new ones.
// at_start: the fragment that starts at `start`, if any; mixed: mix(start).
void DepDomain::add_locked(Task* t, DepKind kind, std::uintptr_t start, std::uintptr_t end,
                           const joule_reduction_op_t* op, Fragment* at_start,
                           std::uint64_t mixed) {
  Access a{kind};
  if (kind == DepKind::reduction) a.slot = reduction_group(t, start, end, op, at_start);
  if (at_start && at_start->end == end) {
    apply(*at_start, t, a);
  } else {
    std::uintptr_t pos = start;
    auto it = first_at_or_after(start);
    for (;;) {
      if (it == frags_.end() || it->first > pos) {  // a gap nobody touched yet
        it = emplace(it, pos, it == frags_.end() ? end : std::min(end, it->first),
                     pos == start ? mixed : mix(pos));
      } else if (it->second.end > end) {
        split(it, end);
      }
      apply(it->second, t, a);
      pos = it->second.end;
      if (pos >= end) break;  // no ++it: stepping past the last node climbs the tree
      ++it;
    }
  }
  if (a.token) a.token->unref();  // fragments and t hold their own refs
  if (a.slot && (!t->reductions || t->reductions->slot != a.slot)) {
    void* mem = pool_.allocate(sizeof(ReductionMember), alignof(ReductionMember));
    members_ = ::new (mem) ReductionMember{a.slot, t->reductions, members_};
    t->reductions = members_;
    a.slot->enter();
  }
}

// The group a reduction on [start, end) joins: the open one on exactly
// that region with the same operator, or a new one. An open group's slot
// is the current group of every fragment of its region (any other access
// there closes it), so looking at the first fragment is enough.
ReductionSlot* DepDomain::reduction_group(Task* t, std::uintptr_t start, std::uintptr_t end,
                                          const joule_reduction_op_t* op, const Fragment* first) {
  if (first && first->kind == DepKind::reduction && first->cur.slot &&
      first->cur.slot->joinable(start, end, op))
    return first->cur.slot;
  // Below a task that reduces the same data, fold into that task's group.
  ReductionSlot* into = nullptr;
  std::ptrdiff_t offset = 0;
  for (ReductionMember* m = t->parent ? t->parent->reductions : nullptr; m; m = m->next) {
    offset = m->slot->offset_of(start, end - start);
    if (offset >= 0) {
      into = m->slot;
      break;
    }
  }
  slots_.reserve(slots_.size() + 1);  // so that push_back cannot throw below
  auto* slot = new ReductionSlot(start, end, op, into, into ? std::size_t(offset) : 0);
  slots_.push_back(slot);
  return slot;
}

// The first fragment starting at or after `start`, after splitting the one
// that straddles `start`, if any. Appending past the last fragment (the
// common case for new data) costs no tree descent.
DepDomain::Map::iterator DepDomain::first_at_or_after(std::uintptr_t start) {
  if (frags_.empty() || frags_.rbegin()->second.end <= start) return frags_.end();
  auto it = frags_.upper_bound(start);
  if (it == frags_.begin()) return it;
  auto before = std::prev(it);
  if (before->second.end <= start) return it;
  if (before->first == start) return before;
  split(before, start);
  return std::next(before);
}

// A new fragment [start, end) without history, built in its node: a
// Fragment is 160 bytes, and moving one in costs as much as making it.
DepDomain::Map::iterator DepDomain::emplace(Map::iterator hint, std::uintptr_t start,
                                            std::uintptr_t end, std::uint64_t mixed) {
  make_room_to_track();  // nothing can throw once the fragment exists
  auto it = frags_.emplace_hint(hint, std::piecewise_construct, std::forward_as_tuple(start),
                                std::forward_as_tuple());
  Fragment& f = it->second;
  f.end = end;
  f.epoch = epoch_;
  ++made_;
  by_start_.insert_mixed(start, mixed, &f);
  touched_.push_back(&f);
  return it;
}

// Cuts the fragment at `at`; both halves keep the same history. The copies
// come first: they may throw, and then nothing has changed.
void DepDomain::split(Map::iterator it, std::uintptr_t at) {
  Fragment& f = it->second;
  refresh(f);
  Group cur = copy(f.cur);
  Group prev = copy(f.prev);
  Fragment& tail = emplace(std::next(it), at, f.end, mix(at))->second;
  tail.kind = f.kind;
  tail.prev_kind = f.prev_kind;
  tail.cur = std::move(cur);
  tail.prev = std::move(prev);
  f.end = at;
}

// A fragment last used before the latest reset() was emptied there: it
// joins this epoch (refresh). Out of line: the common case is one compare.
[[gnu::noinline]] void DepDomain::rejoin(Fragment& f) {
  make_room_to_track();  // may throw before anything changes
  touched_.push_back(&f);
  f.epoch = epoch_;
  ++reused_;
}

// Geometric growth: reserve(size + 1) would copy the list on every call.
void DepDomain::make_room_to_track() {
  if (touched_.size() == touched_.capacity()) touched_.reserve(2 * touched_.size() + 64);
}

// Software-pipelined: fragments are fetched kAhead steps before their tasks,
// and tasks kAhead steps before they are released.
void DepDomain::drop_touched() noexcept {
  constexpr std::size_t kAhead = 8;
  const std::size_t n = touched_.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (i + 2 * kAhead < n) {
      const char* next = reinterpret_cast<const char*>(touched_[i + 2 * kAhead]);
      __builtin_prefetch(next);
      __builtin_prefetch(next + 64);
    }
    if (i + kAhead < n) {
      const Fragment& soon = *touched_[i + kAhead];
      for (Task* t : soon.cur.tasks) prefetch_for_release(t);
      for (Task* t : soon.prev.tasks) prefetch_for_release(t);
    }
    Fragment& f = *touched_[i];
    drop(f.cur);
    drop(f.prev);
    f.kind = DepKind::none;
    f.prev_kind = DepKind::none;
  }
  touched_.clear();
}

// t starts the fragment's current group, which is empty.
[[gnu::always_inline]] inline void DepDomain::start_group(Fragment& f, Task* t, Access& a) {
  f.kind = a.kind;
  domain_retain(t);
  f.cur.tasks.push_back(t);
  f.cur.slot = a.slot;
  if (a.kind == DepKind::commutative) {
    // One token per access, shared by all its fragments: overlapping
    // commutative tasks meet on at least one of them.
    if (!a.token) a.token = new CommutativeToken();
    a.token->ref();
    f.cur.token = a.token;
    hold_token(t, a.token);
  }
}

// Small on purpose: the three cases are functions of their own (tail
// calls), so the common ones do not pay for the others' registers.
void DepDomain::apply(Fragment& f, Task* t, Access& a) {
  refresh(f);
  // New, or emptied by reset(): both groups are empty, nothing to follow.
  if (f.kind == DepKind::none) return start_group(f, t, a);
  const DepKind kind = a.kind;
  const bool joins = kind == DepKind::reduction ? f.kind == kind && f.cur.slot == a.slot
                                                : is_group_kind(kind) && f.kind == kind;
  if (joins) return join_group(f, t, a);
  follow_group(f, t, a);
}

// t joins the current group: it follows the group before, as the others did.
void DepDomain::join_group(Fragment& f, Task* t, Access& a) {
  for (Task* p : f.prev.tasks) link(p, t);
  append(f.cur, t);
  if (a.kind == DepKind::commutative) hold_token(t, f.cur.token);
}

// t follows every task of the current group, which becomes the previous
// one, and starts a new group.
void DepDomain::follow_group(Fragment& f, Task* t, Access& a) {
  // A writer after a writer: the data t updates was last written by p.
  const bool same_data = a.kind == DepKind::inout && f.kind == DepKind::inout;
  for (Task* p : f.cur.tasks) link(p, t, same_data);
  // Closed only now that t follows the members: if they have all completed
  // the fold runs here, before t is even submitted; otherwise the last of
  // them folds before it releases t (reduction_slot.hpp).
  if (f.kind == DepKind::reduction && f.cur.slot) f.cur.slot->close();
  // cur becomes prev; the old prev's tasks are released, its storage kept.
  drop(f.prev);
  f.prev.tasks.take(f.cur.tasks);
  f.prev.token = std::exchange(f.cur.token, nullptr);
  f.prev.slot = std::exchange(f.cur.slot, nullptr);
  f.prev_kind = f.kind;
  start_group(f, t, a);
}

inline void DepDomain::append(Group& g, Task* t) {
  // Prune finished tasks now and then so long reader groups stay short.
  const std::size_t n = g.tasks.size();
  if (n >= 8 && (n & (n - 1)) == 0) [[unlikely]]
    prune(g);
  if (!g.tasks.empty() && g.tasks.back() == t) return;
  domain_retain(t);
  g.tasks.push_back(t);
}

[[gnu::noinline]] void DepDomain::prune(Group& g) noexcept {
  for (std::size_t i = g.tasks.size(); i-- > 0;) {
    Task* old = g.tasks[i];
    if (old->finished.load(std::memory_order_acquire)) {
      g.tasks.swap_remove(i);
      domain_release(old);
    }
  }
}

DepDomain::Group DepDomain::copy(const Group& g) {
  Group out;
  out.tasks = g.tasks;
  for (Task* t : out.tasks) domain_retain(t);
  out.token = g.token;
  if (out.token) out.token->ref();
  out.slot = g.slot;
  return out;
}

inline void DepDomain::drop(Group& g) noexcept {
  for (Task* t : g.tasks) domain_release(t);
  g.tasks.clear();
  if (g.token) g.token->unref();
  g.token = nullptr;
  g.slot = nullptr;
}

// The domain ends (taskwait, or the parent completes): every member of
// every group has completed, so closing an open group folds it here.
void DepDomain::end_reductions() noexcept {
  for (ReductionSlot* s : slots_) s->close();
  for (ReductionSlot* s : slots_) delete s;
  slots_.clear();
  while (ReductionMember* m = members_) {
    members_ = m->domain_next;
    pool_.deallocate(m, sizeof(ReductionMember), alignof(ReductionMember));
  }
}

void DepDomain::reset() noexcept {
  std::lock_guard guard(lock_);
  reset_unlocked();
}

void DepDomain::reset_unlocked() noexcept {
  made_ = reused_ = 0;
  if (frags_.size() > kKeepFragments) return clear_unlocked();
  end_reductions();
  drop_touched();
  if (++epoch_ == 0) clear_unlocked();  // wrapped: a fragment might match a stale epoch
}

void DepDomain::clear() noexcept {
  std::lock_guard guard(lock_);
  clear_unlocked();
}

void DepDomain::clear_unlocked() noexcept {
  end_reductions();
  drop_touched();
  frags_.clear();
  by_start_.clear();
}

}  // namespace joule::engine
