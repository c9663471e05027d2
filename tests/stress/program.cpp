#include "program.hpp"

#include <algorithm>
#include <random>
#include <sstream>

namespace joule_stress {
namespace {

using joule_test::access_name;

bool disjoint(region a, region b) { return a.end() <= b.start || b.end() <= a.start; }
bool inside(region inner, region outer) {
  return inner.start >= outer.start && inner.end() <= outer.end();
}

// Kinds a child may use inside a parent region of kind `parent`. Commutative
// parents admit only commuting updates: anything that writes or observes
// would make the result depend on the order of the commutative siblings.
std::vector<access_kind> child_kinds(access_kind parent) {
  switch (parent) {
    case access_kind::in:
      return {access_kind::in};
    case access_kind::concurrent:
      return {access_kind::concurrent};
    case access_kind::commutative:
    case access_kind::reduction:
      return {access_kind::commutative, access_kind::concurrent, access_kind::reduction};
    default:
      return {access_kind::in,          access_kind::out,        access_kind::inout,
              access_kind::commutative, access_kind::concurrent, access_kind::reduction};
  }
}

// Nesting levels: top-level tasks are level 1.
constexpr int kMaxDepth = 4;

int weight(access_kind a) {
  switch (a) {
    case access_kind::in:
      return 25;
    case access_kind::out:
      return 12;
    case access_kind::inout:
      return 25;
    case access_kind::commutative:
      return 15;
    case access_kind::concurrent:
      return 15;
    case access_kind::reduction:
      return 8;
  }
  return 1;
}

class generator {
 public:
  generator(program& p, std::uint32_t max_tasks) : p_(p), rng_(p.seed), max_tasks_(max_tasks) {}

  void run() {
    for (auto& b : p_.initial) b = static_cast<std::uint8_t>(rng_());
    const std::vector<access_dep> whole{{access_kind::inout, {0, kMemBytes}}};
    p_.top = gen_ops(whole, 1, false, uniform(3, 40));
  }

 private:
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool coin(double p) { return std::bernoulli_distribution(p)(rng_); }

  access_kind pick_kind(access_kind parent) {
    const auto kinds = child_kinds(parent);
    std::vector<int> w;
    for (access_kind k : kinds) w.push_back(weight(k));
    return kinds[std::discrete_distribution<int>(w.begin(), w.end())(rng_)];
  }

  // A fresh random region inside `within`: aligned to 4 bytes most of the
  // time (so identical, nested and adjacent regions are common), any bytes
  // otherwise.
  region fresh_region(region within) {
    const std::uint32_t first_aligned = (within.start + 3) / 4 * 4;
    if (coin(0.6) && first_aligned + 4 <= within.end()) {
      const std::uint32_t slots = (within.end() - first_aligned) / 4;
      const std::uint32_t s = static_cast<std::uint32_t>(uniform(0, static_cast<int>(slots) - 1));
      const std::uint32_t n = static_cast<std::uint32_t>(uniform(1, std::min<int>(8, slots - s)));
      return {first_aligned + 4 * s, 4 * n};
    }
    const std::uint32_t s = within.start + static_cast<std::uint32_t>(uniform(0, within.len - 1));
    const int room = static_cast<int>(within.end() - s);
    return {s, static_cast<std::uint32_t>(uniform(1, std::min(24, room)))};
  }

  // A region inside `within`, disjoint from `taken`; reuses or abuts a
  // recently used region now and then. False when none was found.
  bool pick_region(region within, const std::vector<access_dep>& taken, region& out) {
    for (int attempt = 0; attempt < 12; ++attempt) {
      const region fresh = fresh_region(within);
      region r = fresh;
      if (!recent_.empty() && coin(0.3)) {
        const region old = recent_[uniform(0, static_cast<int>(recent_.size()) - 1)];
        r = old;                                    // identical
        if (coin(0.3)) r = {old.end(), fresh.len};  // adjacent after
        if (coin(0.2) && old.start >= fresh.len) r = {old.start - fresh.len, fresh.len};
      }
      if (r.len == 0 || !inside(r, within)) continue;
      bool ok = true;
      for (const auto& d : taken) ok = ok && disjoint(d.r, r);
      if (!ok) continue;
      if (recent_.size() < 24) {
        recent_.push_back(r);
      } else {
        recent_[uniform(0, 23)] = r;
      }
      out = r;
      return true;
    }
    return false;
  }

  std::uint32_t gen_task(const std::vector<access_dep>& owner, int depth, bool parent_final) {
    const auto index = static_cast<std::uint32_t>(p_.tasks.size());
    p_.tasks.emplace_back();
    task_node t;
    t.id = index;
    const int ndeps = uniform(1, 3);
    for (int j = 0; j < ndeps; ++j) {
      const access_dep& o = owner[uniform(0, static_cast<int>(owner.size()) - 1)];
      region r;
      if (!pick_region(o.r, t.deps, r)) continue;
      t.deps.push_back({pick_kind(o.kind), r});
    }
    t.priority = uniform(-2, 3);
    t.final = coin(0.05);
    t.in_final = parent_final || t.final;
    t.undeferred = coin(0.06);
    static constexpr int spins[] = {0, 0, 0, 0, 0, 1, 5, 20};
    t.spin_us = spins[uniform(0, 7)];
    t.first_slot = p_.num_slots;
    p_.num_slots += static_cast<std::uint32_t>(t.deps.size());
    if (depth < kMaxDepth && !t.deps.empty() && coin(0.35))
      t.body = gen_ops(t.deps, depth + 1, t.in_final, uniform(1, 5));
    p_.tasks[index] = std::move(t);
    return index;
  }

  op gen_taskwait_on(const std::vector<access_dep>& owner) {
    op o;
    o.kind = op_kind::taskwait_on;
    std::vector<const access_dep*> eligible;
    for (const auto& d : owner)
      if (d.kind == access_kind::in || d.kind == access_kind::out || d.kind == access_kind::inout)
        eligible.push_back(&d);
    if (eligible.empty()) {
      o.kind = op_kind::taskwait;
      return o;
    }
    bool all_writable = true;
    const int n = uniform(1, 2);
    for (int i = 0; i < n; ++i) {
      const access_dep& d = *eligible[uniform(0, static_cast<int>(eligible.size()) - 1)];
      region r;
      if (!pick_region(d.r, o.wait_deps, r)) continue;
      static constexpr access_kind kinds[] = {access_kind::in, access_kind::out,
                                              access_kind::inout};
      const access_kind k = d.kind == access_kind::in ? access_kind::in : kinds[uniform(0, 2)];
      all_writable = all_writable && k != access_kind::in;
      o.wait_deps.push_back({k, r});
    }
    if (o.wait_deps.empty()) o.kind = op_kind::taskwait;
    o.write_after = all_writable && !o.wait_deps.empty() && coin(0.5);
    return o;
  }

  std::vector<op> gen_ops(const std::vector<access_dep>& owner, int depth, bool in_final,
                          int count) {
    std::vector<op> ops;
    for (int i = 0; i < count && p_.tasks.size() < max_tasks_; ++i) {
      // Fewer waits at the top level, so more tasks are in flight together.
      const int r = uniform(0, 99);
      const int spawn_pct = depth == 1 ? 80 : 72;
      const int taskwait_pct = depth == 1 ? 7 : 12;
      op o;
      if (r < spawn_pct) {
        o.kind = op_kind::spawn;
        o.task = gen_task(owner, depth, in_final);
      } else if (r < spawn_pct + taskwait_pct) {
        o.kind = op_kind::taskwait;
      } else {
        o = gen_taskwait_on(owner);
      }
      if (o.kind != op_kind::spawn) o.obs_slot = p_.num_slots++;
      ops.push_back(std::move(o));
    }
    return ops;
  }

  program& p_;
  std::mt19937_64 rng_;
  std::uint32_t max_tasks_;
  std::vector<region> recent_;
};

void describe_deps(std::ostringstream& os, const std::vector<access_dep>& deps) {
  os << "[";
  for (std::size_t i = 0; i < deps.size(); ++i)
    os << (i ? ", " : "") << access_name(deps[i].kind) << " " << deps[i].r.start << "+"
       << deps[i].r.len;
  os << "]";
}

void describe_ops(std::ostringstream& os, const program& p, const std::vector<op>& ops,
                  int indent) {
  const std::string pad(static_cast<std::size_t>(indent) * 2, ' ');
  for (const op& o : ops) {
    if (o.kind == op_kind::spawn) {
      const task_node& t = p.tasks[o.task];
      os << pad << "T" << t.id << " ";
      describe_deps(os, t.deps);
      if (t.priority) os << " prio=" << t.priority;
      if (t.final) os << " final";
      if (t.undeferred) os << " if(0)";
      if (t.spin_us) os << " spin=" << t.spin_us << "us";
      os << "\n";
      describe_ops(os, p, t.body, indent + 1);
    } else if (o.kind == op_kind::taskwait) {
      os << pad << "taskwait (observe #" << o.obs_slot << ")\n";
    } else {
      os << pad << "taskwait_on ";
      describe_deps(os, o.wait_deps);
      os << " (observe #" << o.obs_slot << (o.write_after ? ", then write" : "") << ")\n";
    }
  }
}

}  // namespace

program generate(std::uint64_t seed, std::uint32_t max_tasks) {
  program p;
  p.seed = seed;
  generator(p, max_tasks).run();
  return p;
}

std::string describe(const program& p) {
  std::ostringstream os;
  os << "program seed " << p.seed << ": " << p.tasks.size() << " tasks, " << kMemBytes
     << " bytes\n";
  describe_ops(os, p, p.top, 1);
  return os.str();
}

}  // namespace joule_stress
