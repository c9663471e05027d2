// The platform layer on the task path: one slot per worker (worker_slot.hpp)
// charged with the worker's time at each P-state and asleep, the
// emulated-DVFS stretch of each task, per-label task statistics, the
// per-task counters (counters.hpp) and the listener's per-task view
// (platform_listener.hpp). Every hook touches only the calling worker's
// slot, without locks; other threads read the slot's atomics for mid-run
// energy estimates (sensors.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "counters.hpp"
#include "frequencies.hpp"
#include "machine.hpp"
#include "worker_slot.hpp"

namespace joule::core {
struct Task;
struct RunInfo;
}  // namespace joule::core

namespace joule::platform {

class PlatformListener;

struct LabelStats {
  std::string label;
  std::uint64_t tasks = 0;
  std::uint64_t ns = 0;             // body time
  std::uint64_t stretched_ns = 0;   // added by emulated DVFS
  std::vector<long long> counters;  // per Counters::names()
};

// JOULE_MEMORY_BOUND: the share of a task's time that a slower CPU does not
// stretch, per label, and for the rest.
struct MemoryBound {
  std::vector<std::pair<std::string, double>> by_label;
  double fallback = 0;
};

class WorkerAccounts {
 public:
  WorkerAccounts(const Machine& machine, Frequencies& freq, Counters& counters, MemoryBound mb);
  WorkerAccounts(const WorkerAccounts&) = delete;
  WorkerAccounts& operator=(const WorkerAccounts&) = delete;

  // A slot per worker of the run, charged from `start_ns`. Each worker's
  // platform CPU is its real CPU, or with a synthetic topology and emulated
  // DVFS, model PU (worker mod N).
  void begin(const core::RunInfo& run, std::uint64_t start_ns);
  // The listener's per-task hooks, when it is live (before begin).
  void attach(PlatformListener* listener, bool live) noexcept {
    listener_ = listener;
    live_ = live;
  }

  int count() const noexcept { return int(cpus_.size()); }
  int cpu(int worker) const { return cpus_[std::size_t(worker)]; }
  const std::vector<int>& cpus() const noexcept { return cpus_; }
  // Platform CPUs of a chip that run a worker, ascending.
  std::vector<int> cpus_of_chip(int chip) const;
  bool has_slot(int worker) const noexcept {
    return worker >= 0 && std::size_t(worker) < slots_.size();
  }
  // A worker's accounting (after begin; worker < count()).
  WorkerSlot& slot(int worker) { return *slots_[std::size_t(worker)]; }
  const WorkerSlot& slot(int worker) const { return *slots_[std::size_t(worker)]; }
  const std::vector<std::unique_ptr<WorkerSlot>>& slots() const noexcept { return slots_; }

  // ---- the observer's hooks, on the worker's own thread ----
  void worker_start(int worker);
  void worker_stop(int worker);
  void task_start(const core::Task& t, int worker);
  void task_end(const core::Task& t, int worker, std::uint64_t start_ns, std::uint64_t end_ns);
  void idle(int worker, bool sleeping, std::uint64_t now);
  // The worker's time so far charged at `level` (-1: the CPU's level now).
  void charge_worker(int worker, std::uint64_t until, int level);

  // Per P-state active ns of a slot up to `now` (its open interval
  // included), and its sleep; measured CPU time replaces the hooks' view
  // where the meter counts it (Counters::task_clock).
  std::vector<std::uint64_t> active_of(const WorkerSlot& s, std::uint64_t now,
                                       std::uint64_t* sleep) const;
  // Per task label, merged over workers (complete after the runtime stopped).
  std::vector<LabelStats> label_stats() const;
  // Tells the DVFS backend which trace rows show each platform CPU
  // (platform_trace.cpp).
  void trace_cpus();

 private:
  void charge(WorkerSlot& s, std::uint64_t now, int level = -1) const;
  double memory_bound(WorkerSlot& s, const char* label) const;
  void listener_task_end(WorkerSlot& s, const core::Task& t, std::uint64_t own, std::uint64_t extra,
                         std::uint64_t now);
  void trace_first(WorkerSlot& s) const noexcept;

  const Machine& machine_;
  Frequencies& freq_;
  Counters& counters_;
  const MemoryBound memory_bound_;
  std::vector<int> cpus_;
  std::vector<std::unique_ptr<WorkerSlot>> slots_;
  PlatformListener* listener_ = nullptr;
  bool live_ = false;
};

}  // namespace joule::platform
