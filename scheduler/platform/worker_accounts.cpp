// Energy accounting per worker, the emulated-DVFS stretch and per-task
// counters. Everything on the task path touches only the calling worker's
// slot.
#include "worker_accounts.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "observer.hpp"
#include "platform_listener.hpp"
#include "task.hpp"
#include "trace_api.hpp"

namespace joule::platform {
namespace {

void relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

void add(std::atomic<std::uint64_t>& a, std::uint64_t v) noexcept {
  a.store(a.load(std::memory_order_relaxed) + v, std::memory_order_relaxed);
}

}  // namespace

WorkerAccounts::WorkerAccounts(const Machine& machine, Frequencies& freq, Counters& counters,
                               MemoryBound mb)
    : machine_(machine), freq_(freq), counters_(counters), memory_bound_(std::move(mb)) {}

void WorkerAccounts::begin(const core::RunInfo& run, std::uint64_t start_ns) {
  const int n = int(run.worker_cpus.size());
  cpus_.clear();
  slots_.clear();
  const bool model_pus = machine_.synthetic() && !(freq_.backend().caps() & kCapReal);
  for (int w = 0; w < n; ++w) {
    const int cpu = model_pus ? machine_.pus()[std::size_t(w) % machine_.pus().size()].cpu
                              : run.worker_cpus[std::size_t(w)];
    cpus_.push_back(cpu);
    auto s = std::make_unique<WorkerSlot>();
    s->worker = w;
    s->cpu = cpu;
    s->chip = machine_.chip_of(cpu);
    s->table = &freq_.pstates(cpu);
    s->active_ns.reset(new std::atomic<std::uint64_t>[s->table->size()]);
    for (std::size_t i = 0; i < s->table->size(); ++i) s->active_ns[i].store(0);
    s->last.store(start_ns);
    s->running.store(true);
    s->trace_cpu = run.worker_cpus[std::size_t(w)];
    slots_.push_back(std::move(s));
  }
}

std::vector<int> WorkerAccounts::cpus_of_chip(int chip) const {
  std::vector<int> out;
  for (int c : cpus_)
    if (machine_.chip_of(c) == chip) out.push_back(c);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void WorkerAccounts::charge(WorkerSlot& s, std::uint64_t now, int level) const {
  const std::uint64_t last = s.last.load(std::memory_order_relaxed);
  if (now <= last) return;
  if (s.sleeping.load(std::memory_order_relaxed)) {
    add(s.sleep_ns, now - last);
  } else {
    const int lvl = level >= 0 ? level : freq_.backend().level(s.cpu);
    const std::size_t i = lvl < 0 ? s.table->size() - 1 : std::size_t(lvl);
    add(s.active_ns[i], now - last);
  }
  s.last.store(now, std::memory_order_relaxed);
}

void WorkerAccounts::worker_start(int worker) {
  WorkerSlot& s = *slots_[std::size_t(worker)];
  // The CPU is the process's from the start: time before the thread ran
  // is charged as active.
  s.running.store(true, std::memory_order_relaxed);
  counters_.open(s, worker);
}

void WorkerAccounts::worker_stop(int worker) {
  WorkerSlot& s = *slots_[std::size_t(worker)];
  charge(s, core::now_ns());
  s.running.store(false, std::memory_order_relaxed);
  counters_.close(s);
}

void WorkerAccounts::task_start(const core::Task& t, int worker) {
  WorkerSlot& s = *slots_[std::size_t(worker)];
  if (core::trace::enabled() && !s.traced) trace_first(s);
  if (live_) {
    listener_->task_starting(s);
    s.in_task.store(true, std::memory_order_relaxed);
    if (listener_->wants_critical()) {
      // Successors are added under the task's lock (add_edge): take it to
      // read them. Only the graph policies ask, once per task.
      auto& lock = const_cast<core::Task&>(t).lock;
      lock.lock();
      const bool waited_on = !t.successors.empty();
      lock.unlock();
      s.critical.store(waited_on, std::memory_order_relaxed);
      if (waited_on) s.critical_seen.store(true, std::memory_order_relaxed);
    }
  }
  s.excluded.push_back(0);
  counters_.task_start(s);
}

double WorkerAccounts::memory_bound(WorkerSlot& s, const char* label) const {
  auto it = s.memory_bound.find(label);
  if (it != s.memory_bound.end()) return it->second;
  double m = memory_bound_.fallback;
  if (label)
    for (const auto& [l, v] : memory_bound_.by_label)
      if (l == label) m = v;
  s.memory_bound.emplace(label, m);
  return m;
}

// A CPU at f < fmax runs the compute-bound part of a task fmax/f times
// slower: after a task of wall time t the worker stays busy for
// t * (fmax/f - 1) * (1 - m), plus any frequency-change stall it owes.
// t excludes what ran inside the task's taskwait (nested tasks, with their
// own stretch) and reported sleep there, so nothing is stretched twice.
void WorkerAccounts::task_end(const core::Task& t, int worker, std::uint64_t start_ns,
                              std::uint64_t end_ns) {
  WorkerSlot& s = *slots_[std::size_t(worker)];
  std::uint64_t own = end_ns - start_ns;
  if (!s.excluded.empty()) {
    own -= std::min(own, s.excluded.back());
    s.excluded.pop_back();
  }
  LabelAcc& acc = s.labels[t.label];
  ++acc.tasks;
  acc.ns += end_ns - start_ns;
  counters_.task_end(s, acc);
  Dvfs& dvfs = freq_.backend();
  if (dvfs.caps() & kCapStretch) {
    std::uint64_t extra = 0;
    const std::uint32_t f = dvfs.frequency(s.cpu), fmax = s.table->back();
    if (f && f < fmax) {
      const double factor = (double(fmax) / double(f) - 1.0) * (1.0 - memory_bound(s, t.label));
      extra = std::uint64_t(double(own) * factor);
      acc.stretched_ns += extra;
      s.stretched_ns += extra;
      ++s.stretched_tasks;
    }
    const std::uint64_t stall = dvfs.take_stall_ns(s.cpu);
    s.stalled_ns += stall;
    extra += stall;
    if (extra) {
      const std::uint64_t until = end_ns + extra;
      while (core::now_ns() < until) relax();
    }
  }
  const std::uint64_t now = core::now_ns();
  if (!s.excluded.empty()) s.excluded.back() += now - start_ns;  // not the parent's own
  charge(s, now);
  if (live_) listener_task_end(s, t, own, now - end_ns, now);
}

// The listener's per-worker view: busy time with its stretch, and the work
// in seconds at fmax (a stretched body ran at fmax speed: its own time is
// the work; on real DVFS the body ran at f, so own * f / fmax).
void WorkerAccounts::listener_task_end(WorkerSlot& s, const core::Task& t, std::uint64_t own,
                                       std::uint64_t extra, std::uint64_t now) {
  std::uint64_t work = own;
  const Dvfs& dvfs = freq_.backend();
  if (!(dvfs.caps() & kCapStretch)) {
    const std::uint32_t f = dvfs.frequency(s.cpu), fmax = s.table->back();
    if (f && f < fmax) work = std::uint64_t(double(own) * double(f) / double(fmax));
  }
  add(s.busy_ns, own + extra);
  add(s.stretch_ns, extra);
  add(s.work_ns, work);
  s.in_task.store(false, std::memory_order_relaxed);
  s.critical.store(false, std::memory_order_relaxed);
  listener_->task_ended(s, t.affinity, work, now);
}

void WorkerAccounts::idle(int worker, bool sleeping, std::uint64_t now) {
  WorkerSlot& s = *slots_[std::size_t(worker)];
  if (core::trace::enabled() && !s.traced) trace_first(s);
  charge(s, now);
  s.sleeping.store(sleeping, std::memory_order_relaxed);
  if (sleeping)
    s.sleep_since = now;
  else if (!s.excluded.empty() && now > s.sleep_since)
    s.excluded.back() += now - s.sleep_since;
}

void WorkerAccounts::charge_worker(int worker, std::uint64_t until, int level) {
  if (has_slot(worker)) charge(*slots_[std::size_t(worker)], until, level);
}

std::vector<std::uint64_t> WorkerAccounts::active_of(const WorkerSlot& s, std::uint64_t now,
                                                     std::uint64_t* sleep) const {
  std::vector<std::uint64_t> a(s.table->size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = s.active_ns[i].load(std::memory_order_relaxed);
  *sleep = s.sleep_ns.load(std::memory_order_relaxed);
  const std::uint64_t last = s.last.load(std::memory_order_relaxed);
  if (s.running.load(std::memory_order_relaxed) && now > last) {  // the open interval
    if (s.sleeping.load(std::memory_order_relaxed))
      *sleep += now - last;
    else {
      const int lvl = freq_.backend().level(s.cpu);
      a[lvl < 0 ? a.size() - 1 : std::size_t(lvl)] += now - last;
    }
  }
  if (counters_.task_clock() && s.task_clock_ns >= 0) {
    // Measured CPU time replaces the hooks' view of active time; the split
    // across P-states keeps the hooks' proportions.
    std::uint64_t total = 0;
    for (auto v : a) total += v;
    const std::uint64_t wall = total + *sleep,
                        cpu = std::min<std::uint64_t>(std::uint64_t(s.task_clock_ns), wall);
    for (auto& v : a) v = total ? std::uint64_t(double(v) * double(cpu) / double(total)) : 0;
    if (!total && !a.empty()) a.back() = cpu;
    *sleep = wall - cpu;
  }
  return a;
}

std::vector<LabelStats> WorkerAccounts::label_stats() const {
  std::map<std::string, LabelStats> merged;
  for (const auto& s : slots_)
    for (const auto& [label, acc] : s->labels) {
      const std::string name = label ? label : "(unlabelled)";
      LabelStats& m = merged[name];
      m.label = name;
      m.tasks += acc.tasks;
      m.ns += acc.ns;
      m.stretched_ns += acc.stretched_ns;
      m.counters.resize(std::max(m.counters.size(), acc.counters.size()), 0);
      for (std::size_t i = 0; i < acc.counters.size(); ++i) m.counters[i] += acc.counters[i];
    }
  std::vector<LabelStats> out;
  for (auto& [k, v] : merged) out.push_back(std::move(v));
  return out;
}

}  // namespace joule::platform
