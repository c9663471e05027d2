#include "dep_domain.hpp"

#include <algorithm>

#include "commutative.hpp"

namespace joule::rt {
namespace {

bool is_group_kind(DepKind k) {
  return k == DepKind::in || k == DepKind::concurrent || k == DepKind::commutative;
}

}  // namespace

void DepDomain::add(Task* t, DepKind kind, std::uintptr_t start, std::uintptr_t end) {
  if (start >= end) return;  // an empty region orders nothing
  if (kind == DepKind::out) kind = DepKind::inout;  // both are exclusive writers
  CommutativeToken* access_token = nullptr;

  auto exact = frags_.find(start);
  if (exact != frags_.end() && exact->second.end == end) {
    apply(exact->second, t, kind, access_token);
  } else {
    split_at(start);
    split_at(end);
    std::uintptr_t pos = start;
    auto it = frags_.lower_bound(start);
    while (pos < end) {
      if (it == frags_.end() || it->first > pos) {  // a gap nobody touched yet
        std::uintptr_t gap_end = it == frags_.end() ? end : std::min(end, it->first);
        it = frags_.emplace_hint(it, pos, Fragment{});
        it->second.end = gap_end;
      }
      apply(it->second, t, kind, access_token);
      pos = it->second.end;
      ++it;
    }
  }
  if (access_token) access_token->unref();  // fragments and t hold their own refs
}

void DepDomain::split_at(std::uintptr_t at) {
  auto it = frags_.upper_bound(at);
  if (it == frags_.begin()) return;
  --it;
  Fragment& f = it->second;
  if (!(it->first < at && at < f.end)) return;
  Fragment tail;
  tail.end = f.end;
  tail.kind = f.kind;
  tail.cur = copy(f.cur);
  tail.prev = copy(f.prev);
  f.end = at;
  frags_.emplace_hint(std::next(it), at, std::move(tail));
}

void DepDomain::apply(Fragment& f, Task* t, DepKind kind, CommutativeToken*& access_token) {
  if (is_group_kind(kind) && f.kind == kind) {
    for (Task* p : f.prev.tasks) add_edge(p, t);
    append(f.cur, t);
    if (kind == DepKind::commutative) hold_token(t, f.cur.token);
    return;
  }
  for (Task* p : f.cur.tasks) add_edge(p, t);
  drop(f.prev);
  f.prev = std::move(f.cur);
  f.cur = Group{};
  f.kind = kind;
  append(f.cur, t);
  if (kind == DepKind::commutative) {
    // One token per access, shared by all its fragments: overlapping
    // commutative tasks meet on at least one of them.
    if (!access_token) access_token = new CommutativeToken();
    access_token->ref();
    f.cur.token = access_token;
    hold_token(t, access_token);
  }
}

void DepDomain::append(Group& g, Task* t) {
  // Prune finished tasks now and then so long reader groups stay short.
  const std::size_t n = g.tasks.size();
  if (n >= 8 && (n & (n - 1)) == 0) {
    for (std::size_t i = g.tasks.size(); i-- > 0;) {
      Task* old = g.tasks[i];
      if (old->finished.load(std::memory_order_acquire)) {
        g.tasks.swap_remove(i);
        release(old);
      }
    }
  }
  if (!g.tasks.empty() && g.tasks.back() == t) return;
  retain(t);
  g.tasks.push_back(t);
}

DepDomain::Group DepDomain::copy(const Group& g) {
  Group out;
  out.tasks = g.tasks;
  for (Task* t : out.tasks) retain(t);
  out.token = g.token;
  if (out.token) out.token->ref();
  return out;
}

void DepDomain::drop(Group& g) noexcept {
  for (Task* t : g.tasks) release(t);
  g.tasks.clear();
  if (g.token) g.token->unref();
  g.token = nullptr;
}

void DepDomain::clear() noexcept {
  for (auto& [start, f] : frags_) {
    drop(f.cur);
    drop(f.prev);
  }
  frags_.clear();
}

}  // namespace joule::rt
