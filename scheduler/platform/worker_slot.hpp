// Per-worker accounting of the platform layer. Written only by the worker's
// own thread on the task path (relaxed loads and stores, no locks); other
// threads read the atomics for mid-run energy estimates.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "papi.hpp"
#include "spin_lock.hpp"

namespace joule::platform {

struct LabelAcc {
  std::uint64_t tasks = 0, ns = 0, stretched_ns = 0;
  std::vector<long long> counters;
};

struct alignas(64) WorkerSlot {
  int worker = -1;  // its index
  int cpu = 0;      // platform CPU
  int chip = 0;
  int trace_cpu = -1;                                 // the worker's real CPU: its row in a trace
  bool traced = false;                                // its starting frequency is in the trace
  const std::vector<std::uint32_t>* table = nullptr;  // this CPU's P-states
  std::unique_ptr<std::atomic<std::uint64_t>[]> active_ns;  // per P-state
  std::atomic<std::uint64_t> sleep_ns{0};
  std::atomic<std::uint64_t> last{0};  // end of the charged time
  std::atomic<bool> sleeping{false};
  std::atomic<bool> running{false};  // between worker start and stop
  std::uint64_t stretched_ns = 0, stalled_ns = 0, stretched_tasks = 0;
  // Per task open on this worker (nested tasks run inside a taskwait):
  // time inside it that was not its own work (nested tasks, sleeping).
  std::vector<std::uint64_t> excluded;
  std::uint64_t sleep_since = 0;
  std::unordered_map<const char*, LabelAcc> labels;
  std::unordered_map<const char*, double> memory_bound;  // cache by label pointer
  PapiEventSet papi;
  std::vector<long long> at_start, now_values;
  long long task_clock_ns = -1;  // measured CPU time (papi meter mode)
  // For the energy controller, cumulative (it keeps what it saw last):
  // time in task bodies (stretch included), the part stretch added, and
  // the work done in seconds at fmax.
  std::atomic<std::uint64_t> busy_ns{0}, stretch_ns{0}, work_ns{0};
  std::atomic<bool> in_task{false};
  // A task others wait on runs now / ran since the controller last looked.
  std::atomic<bool> critical{false}, critical_seen{false};
  // Work per affinity key since the controller last took it.
  core::SpinLock keys_lock;
  std::unordered_map<std::uint64_t, std::uint64_t> key_work_ns;
};

}  // namespace joule::platform
