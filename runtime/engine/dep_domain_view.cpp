// The registry of live dependency domains and the state dump's copy of
// them (dep_domain_view.hpp).
#include "dep_domain_view.hpp"

#include <sched.h>

#include <mutex>
#include <new>

#include "dep_domain.hpp"

namespace joule::engine {

namespace {

// Domains come and go with the tasks that have children with dependencies,
// on every worker: sharded, so that those threads seldom meet on one lock.
struct alignas(64) Shard {
  SpinLock lock;
  DepDomain* head = nullptr;
  std::size_t count = 0;
};
constexpr std::size_t kShards = 16;
constinit Shard shards[kShards];

}  // namespace

struct DomainRegistry {
  static const DepDomain* next(const DepDomain* d) noexcept { return d->reg_next_; }

  static Shard& of(const DepDomain* d) noexcept {
    const auto a = reinterpret_cast<std::uintptr_t>(d);
    return shards[((a >> 6) ^ (a >> 12)) % kShards];
  }
  static void add(DepDomain* d) noexcept {
    Shard& s = of(d);
    std::lock_guard guard(s.lock);
    d->reg_prev_ = nullptr;  // a recycled domain's links are an earlier listing's
    d->reg_next_ = s.head;
    if (s.head) s.head->reg_prev_ = d;
    s.head = d;
    ++s.count;
  }
  static void remove(DepDomain* d) noexcept {
    Shard& s = of(d);
    std::lock_guard guard(s.lock);
    if (d->reg_prev_)
      d->reg_prev_->reg_next_ = d->reg_next_;
    else
      s.head = d->reg_next_;
    if (d->reg_next_) d->reg_next_->reg_prev_ = d->reg_prev_;
    --s.count;
  }
};

DepDomain::DepDomain(Task* owner) : owner_(owner) {
  DomainRegistry::add(this);
  registered_ = true;
}

DepDomain::~DepDomain() {
  if (registered_) DomainRegistry::remove(this);  // waits for a dump reading it
  clear_unlocked();
}

// Out of the registry while nobody owns it: the dump lists the domains of
// tasks, and a recycled one has neither task nor history.
void DepDomain::retire() noexcept {
  {
    std::lock_guard guard(lock_);
    if (inherited_ && 2 * std::uint64_t(reused_) < made_) clear_unlocked();
    reset_unlocked();  // (after a clear: only the counts and the epoch change)
    owner_ = nullptr;
  }
  if (registered_) DomainRegistry::remove(this);
  registered_ = false;
}

void DepDomain::adopt(Task* owner) noexcept {
  owner_ = owner;
  inherited_ = !frags_.empty();
  if (!registered_) DomainRegistry::add(this);
  registered_ = true;
}

void dep_registry_after_fork_in_child() noexcept {
  // The domains belong to the parent's runtime, which the child gives up
  // (runtime_fork.cpp): forget them, and the locks their threads held.
  for (Shard& s : shards) ::new (&s) Shard();
}

DepTaskView view_task(const Task* t) noexcept {
  DepTaskView v;
  v.task = t;
  v.id = t->id;
  v.label = t->label;
  v.fn = t->fn;
  v.finished = t->finished.load(std::memory_order_acquire);
  v.preds = t->preds.load(std::memory_order_relaxed);
  v.pending = t->pending.load(std::memory_order_relaxed);
  v.spawned = t->spawned.load(std::memory_order_relaxed);
  v.events = t->events.load(std::memory_order_relaxed);
  v.blocking = t->blocking.load(std::memory_order_relaxed);
  return v;
}

class DomainReader {
 public:
  DomainReader(const DepDomain& d, const DepViewLimits& limits) : d_(d), limits_(limits) {}

  // False when the owner's thread held the domain for every try.
  bool read(DepDomainView& out) {
    if (!lock()) return false;
    std::lock_guard guard(d_.lock_, std::adopt_lock);
    if (d_.owner_) out.owner = view_task(d_.owner_);
    std::size_t scanned = 0;
    DepRegionView* last = nullptr;
    const DepDomain::Fragment* last_frag = nullptr;
    for (const auto& [start, f] : d_.frags_) {
      if (++scanned > limits_.scan) {
        out.cut = true;
        break;
      }
      if (f.epoch != d_.epoch_ || !unfinished(f)) continue;
      // Adjacent bytes with the same groups read as one region.
      if (last && last->end == start && same(*last_frag, f)) {
        last->end = f.end;
        last_frag = &f;
        continue;
      }
      if (out.regions.size() == limits_.regions) {
        ++out.more_regions;
        last = nullptr;
        continue;
      }
      out.regions.push_back(region(start, f));
      last = &out.regions.back();
      last_frag = &f;
    }
    return true;
  }

 private:
  bool lock() const {
    for (int i = 0; i < limits_.tries; ++i) {
      if (d_.lock_.try_lock()) return true;
      if (i % 64 == 63) sched_yield();
    }
    return false;
  }
  static bool unfinished(const DepDomain::Fragment& f) {
    for (const Task* t : f.cur.tasks)
      if (!t->finished.load(std::memory_order_acquire)) return true;
    for (const Task* t : f.prev.tasks)
      if (!t->finished.load(std::memory_order_acquire)) return true;
    return false;
  }
  static bool same_group(const DepDomain::Group& a, const DepDomain::Group& b) {
    if (a.tasks.size() != b.tasks.size()) return false;
    for (std::size_t i = 0; i < a.tasks.size(); ++i)
      if (a.tasks[i] != b.tasks[i]) return false;
    return true;
  }
  static bool same(const DepDomain::Fragment& a, const DepDomain::Fragment& b) {
    return a.kind == b.kind && a.prev_kind == b.prev_kind && same_group(a.cur, b.cur) &&
           same_group(a.prev, b.prev);
  }
  DepGroupView group(const DepDomain::Group& g) const {
    DepGroupView v;
    for (const Task* t : g.tasks) {
      if (t->finished.load(std::memory_order_acquire)) continue;
      if (v.tasks.size() < limits_.tasks)
        v.tasks.push_back(view_task(t));
      else
        ++v.more;
    }
    return v;
  }
  DepRegionView region(std::uintptr_t start, const DepDomain::Fragment& f) const {
    DepRegionView r;
    r.start = start;
    r.end = f.end;
    r.kind = f.kind;
    r.before_kind = f.prev_kind;
    r.before = group(f.prev);
    r.now = group(f.cur);
    return r;
  }

  const DepDomain& d_;
  const DepViewLimits& limits_;
};

DepViews view_dependencies(const DepViewLimits& limits) {
  DepViews out;
  for (Shard& s : shards) {
    // Held while its domains are read: none of them can be destroyed
    // meanwhile (a finishing owner waits in ~DepDomain, briefly).
    std::lock_guard guard(s.lock);
    out.live += s.count;
    for (const DepDomain* d = s.head; d; d = DomainRegistry::next(d)) {
      if (out.domains.size() == limits.domains) {
        ++out.more_domains;  // counted without reading: the dump stays bounded
        continue;
      }
      DepDomainView v;
      if (!DomainReader(*d, limits).read(v)) {
        ++out.busy;
        continue;
      }
      if (!v.regions.empty() || v.more_regions > 0) out.domains.push_back(std::move(v));
    }
  }
  return out;
}

}  // namespace joule::engine
