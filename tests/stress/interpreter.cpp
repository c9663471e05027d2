#include "interpreter.hpp"

#include <joule/joule.hpp>

#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <sstream>

namespace joule_stress {
namespace {

using joule_test::access_name;
using joule_test::make_dep;
using joule_test::observes;
using joule_test::perform;

constexpr std::uint64_t kUnset = 0xdeadbeefdeadbeefull;
constexpr std::uint64_t kDirectWriteId = 1000000;  // ids of writes after taskwait_on

// State of one run. Each observation slot is written by one thread once and
// read after the final taskwait, so plain storage is enough.
struct context {
  context(const program& prog, bool no_deps)
      : p(prog),
        drop_deps(no_deps),
        slots(prog.num_slots, kUnset),
        runs(new std::atomic<int>[prog.tasks.size()]()),
        done(new std::atomic<bool>[prog.tasks.size()]()) {
    std::memcpy(mem, prog.initial, kMemBytes);
  }
  void problem(const std::string& s) {
    std::lock_guard lock(m);
    if (problems.size() < 16) problems.push_back(s);
  }

  const program& p;
  const bool drop_deps;
  alignas(64) std::uint8_t mem[kMemBytes];
  std::vector<std::uint64_t> slots;
  std::unique_ptr<std::atomic<int>[]> runs;
  std::unique_ptr<std::atomic<bool>[]> done;
  std::mutex m;
  std::vector<std::string> problems;
};

std::uint64_t observe(const context& c, const std::vector<region>& rs, std::uint32_t slot) {
  std::uint64_t h = slot;
  for (const region& r : rs) h = joule_test::hash_bytes(c.mem + r.start, r.len, h);
  return h;
}

// "T<id>", built without `"literal" + std::string`, which trips a GCC 12
// false -Wrestrict warning.
std::string task_name(std::uint32_t id) {
  std::string s(1, 'T');
  s += std::to_string(id);
  return s;
}

bool observable_kind(access_kind a) {
  return a == access_kind::in || a == access_kind::out || a == access_kind::inout;
}

template <bool Joule>
void run_task(context& c, std::uint32_t index);

template <bool Joule>
void spawn(context& c, std::uint32_t index, bool parent_in_final) {
  const task_node& t = c.p.tasks[index];
  if constexpr (!Joule) {
    run_task<false>(c, index);
  } else {
    std::vector<joule::dep> deps;
    for (const auto& d : t.deps)
      if (!c.drop_deps) deps.push_back(make_dep(d.kind, c.mem + d.r.start, d.r.len));
    joule::task_options o;
    o.priority = t.priority;
    o.final = t.final;
    o.if_ = !t.undeferred;
    joule::spawn(
        std::span<const joule::dep>(deps), [&c, index] { run_task<true>(c, index); }, o);
    if ((t.undeferred || parent_in_final) && !c.done[index].load())
      c.problem(task_name(t.id) + (t.undeferred ? " (if_=false)" : " (below final)") +
                " had not run when spawn returned");
  }
}

template <bool Joule>
void run_wait(context& c, const op& o, const std::vector<region>& observable) {
  if (o.kind == op_kind::taskwait) {
    if constexpr (Joule) joule::taskwait();
    c.slots[o.obs_slot] = observe(c, observable, o.obs_slot);
    return;
  }
  std::vector<region> rs;
  std::vector<joule::dep> deps;
  for (const auto& d : o.wait_deps) {
    rs.push_back(d.r);
    deps.push_back(make_dep(d.kind, c.mem + d.r.start, d.r.len));
  }
  if constexpr (Joule) joule::taskwait_on(std::span<const joule::dep>(deps));
  c.slots[o.obs_slot] = observe(c, rs, o.obs_slot);
  if (o.write_after)
    for (const region& r : rs)
      perform(access_kind::out, c.mem, r.start, r.len, kDirectWriteId + o.obs_slot, 0);
}

template <bool Joule>
void run_ops(context& c, const std::vector<op>& ops, const std::vector<region>& observable,
             bool in_final) {
  for (const op& o : ops) {
    if (o.kind == op_kind::spawn) {
      spawn<Joule>(c, o.task, in_final);
    } else {
      run_wait<Joule>(c, o, observable);
    }
  }
}

template <bool Joule>
void run_task(context& c, std::uint32_t index) {
  const task_node& t = c.p.tasks[index];
  c.runs[index].fetch_add(1);
  if constexpr (Joule) {
    if (joule::in_final() != t.in_final)
      c.problem(task_name(t.id) + ": in_final() is " + (t.in_final ? "false" : "true"));
  }
  std::vector<region> observable;
  for (std::size_t j = 0; j < t.deps.size(); ++j) {
    const access_dep& d = t.deps[j];
    const std::uint64_t seen =
        perform(d.kind, c.mem, d.r.start, d.r.len, t.id, Joule ? t.spin_us : 0);
    if (observes(d.kind)) c.slots[t.first_slot + j] = seen;
    if (observable_kind(d.kind)) observable.push_back(d.r);
  }
  run_ops<Joule>(c, t.body, observable, t.in_final);
  c.done[index].store(true);
}

template <bool Joule>
run_result run(const program& p, bool drop_deps) {
  auto c = std::make_unique<context>(p, drop_deps);
  run_ops<Joule>(*c, p.top, {region{0, kMemBytes}}, false);
  if constexpr (Joule) joule::taskwait();
  run_result r;
  std::memcpy(r.mem, c->mem, kMemBytes);
  r.slots = c->slots;
  for (std::size_t i = 0; i < p.tasks.size(); ++i) r.runs.push_back(c->runs[i].load());
  r.problems = c->problems;
  return r;
}

// Names every observation slot, for failure reports.
void name_slots(const program& p, const std::vector<op>& ops, const std::string& where,
                std::map<std::uint32_t, std::string>& names) {
  for (const op& o : ops) {
    if (o.kind != op_kind::spawn) {
      std::string n = o.kind == op_kind::taskwait ? "taskwait in " : "taskwait_on in ";
      names[o.obs_slot] = n + where;
      continue;
    }
    const task_node& t = p.tasks[o.task];
    for (std::size_t j = 0; j < t.deps.size(); ++j)
      names[t.first_slot + static_cast<std::uint32_t>(j)] =
          task_name(t.id) + " " + access_name(t.deps[j].kind) + " " +
          std::to_string(t.deps[j].r.start) + "+" + std::to_string(t.deps[j].r.len);
    name_slots(p, t.body, task_name(t.id), names);
  }
}

}  // namespace

run_result run_sequential(const program& p) { return run<false>(p, false); }
run_result run_joule(const program& p, bool drop_deps) { return run<true>(p, drop_deps); }

std::string compare(const program& p, const run_result& expected, const run_result& actual) {
  std::ostringstream os;
  for (std::size_t i = 0; i < kMemBytes; ++i)
    if (expected.mem[i] != actual.mem[i])
      os << "  byte " << i << ": expected " << int(expected.mem[i]) << ", got "
         << int(actual.mem[i]) << "\n";
  std::map<std::uint32_t, std::string> names;
  name_slots(p, p.top, "main", names);
  for (std::size_t s = 0; s < expected.slots.size(); ++s)
    if (expected.slots[s] != actual.slots[s])
      os << "  observation #" << s << " (" << names[static_cast<std::uint32_t>(s)] << ") differs"
         << (actual.slots[s] == kUnset ? " (never made)" : "") << "\n";
  for (std::size_t t = 0; t < actual.runs.size(); ++t)
    if (actual.runs[t] != 1) os << "  T" << t << " ran " << actual.runs[t] << " times\n";
  for (const auto& problem : actual.problems) os << "  " << problem << "\n";
  return os.str();
}

}  // namespace joule_stress
