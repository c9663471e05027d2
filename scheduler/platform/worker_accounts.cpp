// The platform layer on the task path: energy accounting per worker, the
// emulated-DVFS stretch, and per-task counters. Everything here touches
// only the calling worker's slot.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "log.hpp"
#include "observer.hpp"
#include "platform.hpp"
#include "platform_listener.hpp"
#include "task.hpp"
#include "trace_api.hpp"
#include "worker_slot.hpp"

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

void Platform::begin(const core::RunInfo& run) {
  start_ns_ = core::now_ns();
  last_sample_ns_.store(start_ns_);
  const int n = int(run.worker_cpus.size());
  worker_cpu_.clear();
  slots_.clear();
  const bool model_pus = machine_.synthetic() && !(dvfs_->caps() & kCapReal);
  for (int w = 0; w < n; ++w) {
    const int cpu = model_pus ? machine_.pus()[std::size_t(w) % machine_.pus().size()].cpu
                              : run.worker_cpus[std::size_t(w)];
    worker_cpu_.push_back(cpu);
    auto s = std::make_unique<WorkerSlot>();
    s->worker = w;
    s->cpu = cpu;
    s->chip = machine_.chip_of(cpu);
    s->table = &pstates(cpu);
    s->active_ns.reset(new std::atomic<std::uint64_t>[s->table->size()]);
    for (std::size_t i = 0; i < s->table->size(); ++i) s->active_ns[i].store(0);
    s->last.store(start_ns_);
    s->running.store(true);
    s->trace_cpu = run.worker_cpus[std::size_t(w)];
    slots_.push_back(std::move(s));
  }
  trace_cpus();
  traced_ns_ = start_ns_;
  traced_joules_ = 0;
  apply_start_frequency();
  if (listener_) listener_->begin(run, start_ns_);
  dvfs_->reset_residency(start_ns_);
  if (meter_) meter_->start();
  max_temp_ = last_temp_ =
      thermal_->update(start_ns_, std::vector<double>(std::size_t(num_chips()), 0.0));
  set_current_platform(this);
}

void Platform::charge(WorkerSlot& s, std::uint64_t now, int level) const {
  const std::uint64_t last = s.last.load(std::memory_order_relaxed);
  if (now <= last) return;
  if (s.sleeping.load(std::memory_order_relaxed)) {
    add(s.sleep_ns, now - last);
  } else {
    const int lvl = level >= 0 ? level : dvfs_->level(s.cpu);
    const std::size_t i = lvl < 0 ? s.table->size() - 1 : std::size_t(lvl);
    add(s.active_ns[i], now - last);
  }
  s.last.store(now, std::memory_order_relaxed);
}

void Platform::worker_start(int worker) {
  WorkerSlot& s = *slots_[std::size_t(worker)];
  // The CPU is the process's from the start: time before the thread ran
  // is charged as active.
  s.running.store(true, std::memory_order_relaxed);
  if (counter_events_.empty() || (!counters_ && !task_clock_meter_)) return;
  std::vector<std::string> skipped;
  std::string why;
  if (!s.papi.open(counter_events_, &skipped, &why)) {
    core::warn_once("counters", "PAPI counters unavailable (" + why + "); tasks are not counted");
    return;
  }
  if (!skipped.empty() && counters_) {
    std::string list;
    for (auto& e : skipped) list += (list.empty() ? "" : ", ") + e;
    core::warn_once("counters",
                    "PAPI counters: " + list + " not available here; counting the others");
  }
  if (worker == 0) {
    counter_names_ = s.papi.names();
    auto it = std::find(counter_names_.begin(), counter_names_.end(), "perf::TASK-CLOCK");
    task_clock_index_ = it == counter_names_.end() ? -1 : int(it - counter_names_.begin());
  }
  s.at_start.assign(s.papi.names().size(), 0);
  s.now_values.assign(s.papi.names().size(), 0);
}

void Platform::worker_stop(int worker) {
  WorkerSlot& s = *slots_[std::size_t(worker)];
  charge(s, core::now_ns());
  s.running.store(false, std::memory_order_relaxed);
  if (s.papi.is_open() && task_clock_meter_ && task_clock_index_ >= 0 &&
      s.papi.read(s.now_values.data()))
    s.task_clock_ns = s.now_values[std::size_t(task_clock_index_)];
  s.papi.close();
}

void Platform::task_start(const core::Task& t, int worker) {
  WorkerSlot& s = *slots_[std::size_t(worker)];
  if (core::trace::enabled() && !s.traced) trace_first(s);
  if (listener_live_) {
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
  if (counters_ && s.papi.is_open()) s.papi.read(s.at_start.data());
}

double Platform::memory_bound(WorkerSlot& s, const char* label) const {
  auto it = s.memory_bound.find(label);
  if (it != s.memory_bound.end()) return it->second;
  double m = memory_bound_default_;
  if (label)
    for (const auto& [l, v] : memory_bound_)
      if (l == label) m = v;
  s.memory_bound.emplace(label, m);
  return m;
}

// A CPU at f < fmax runs the compute-bound part of a task fmax/f times
// slower: after a task of wall time t the worker stays busy for
// t * (fmax/f - 1) * (1 - m), plus any frequency-change stall it owes.
// t excludes what ran inside the task's taskwait (nested tasks, with their
// own stretch) and reported sleep there, so nothing is stretched twice.
void Platform::task_end(const core::Task& t, int worker, std::uint64_t start_ns,
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
  if (counters_ && s.papi.is_open() && s.papi.read(s.now_values.data())) {
    acc.counters.resize(s.now_values.size(), 0);
    for (std::size_t i = 0; i < s.now_values.size(); ++i)
      acc.counters[i] += s.now_values[i] - s.at_start[i];
  }
  if (dvfs_->caps() & kCapStretch) {
    std::uint64_t extra = 0;
    const std::uint32_t f = dvfs_->frequency(s.cpu), fmax = s.table->back();
    if (f && f < fmax) {
      const double factor = (double(fmax) / double(f) - 1.0) * (1.0 - memory_bound(s, t.label));
      extra = std::uint64_t(double(own) * factor);
      acc.stretched_ns += extra;
      s.stretched_ns += extra;
      ++s.stretched_tasks;
    }
    const std::uint64_t stall = dvfs_->take_stall_ns(s.cpu);
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
  if (listener_live_) listener_task_end(s, t, own, now - end_ns, now);
}

// The listener's per-worker view: busy time with its stretch, and the work
// in seconds at fmax (a stretched body ran at fmax speed: its own time is
// the work; on real DVFS the body ran at f, so own * f / fmax).
void Platform::listener_task_end(WorkerSlot& s, const core::Task& t, std::uint64_t own,
                                 std::uint64_t extra, std::uint64_t now) {
  std::uint64_t work = own;
  if (!(dvfs_->caps() & kCapStretch)) {
    const std::uint32_t f = dvfs_->frequency(s.cpu), fmax = s.table->back();
    if (f && f < fmax) work = std::uint64_t(double(own) * double(f) / double(fmax));
  }
  add(s.busy_ns, own + extra);
  add(s.stretch_ns, extra);
  add(s.work_ns, work);
  s.in_task.store(false, std::memory_order_relaxed);
  s.critical.store(false, std::memory_order_relaxed);
  listener_->task_ended(s, t.affinity, work, now);
}

void Platform::idle(int worker, bool sleeping, std::uint64_t now) {
  WorkerSlot& s = *slots_[std::size_t(worker)];
  if (core::trace::enabled() && !s.traced) trace_first(s);
  charge(s, now);
  s.sleeping.store(sleeping, std::memory_order_relaxed);
  if (sleeping)
    s.sleep_since = now;
  else if (!s.excluded.empty() && now > s.sleep_since)
    s.excluded.back() += now - s.sleep_since;
}

void Platform::periodic(std::uint64_t now) {
  if (now - last_sample_ns_.load(std::memory_order_relaxed) < 20'000'000)
    return;  // every 20 ms at most
  std::lock_guard guard(sample_mu_);
  sample_locked(now);
}

void Platform::sample_locked(std::uint64_t now) {
  last_sample_ns_.store(now, std::memory_order_relaxed);
  if (meter_) meter_->sample();
  const EnergyReading r = reading_at(now);
  last_temp_ = thermal_->update(now, r.chip_joules);
  max_temp_.resize(last_temp_.size(), -1e9);
  for (std::size_t c = 0; c < last_temp_.size(); ++c)
    if (!std::isnan(last_temp_[c])) max_temp_[c] = std::max(max_temp_[c], last_temp_[c]);
  if (core::trace::enabled()) trace_sample(now, r);
}

void Platform::iteration(std::uint64_t iteration, std::uint64_t now) {
  periodic(now);
  if (listener_live_) listener_->iteration(iteration, now);
}

void Platform::mpi_enter(int worker) {
  if (listener_ && has_slot(worker)) listener_->mpi_enter(worker);
}

void Platform::mpi_leave(int worker) {
  if (listener_ && has_slot(worker)) listener_->mpi_leave(worker);
}

void Platform::charge_worker(int worker, std::uint64_t until, int level) {
  if (has_slot(worker)) charge(*slots_[std::size_t(worker)], until, level);
}

void Platform::end() {
  const std::uint64_t now = core::now_ns();
  {
    std::lock_guard guard(sample_mu_);
    sample_locked(now);
    end_ns_ = now;
    final_ = reading_at(now);
    ended_ = true;
  }
  if (current_platform() == this) set_current_platform(nullptr);
  if (listener_) listener_->end(now);
  dvfs_->restore();
}

}  // namespace joule::platform
