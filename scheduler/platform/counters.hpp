// Hardware counters per task (JOULE_COUNTERS=papi, JOULE_COUNTER_EVENTS),
// and perf::TASK-CLOCK when the papi meter models power over measured CPU
// time instead (platform.cpp, choose_meter). PAPI counts per thread, so
// each worker opens its own event set on its own thread (worker_slot.hpp);
// the names are those worker 0 could open. Per-label sums are in
// WorkerAccounts::label_stats.
#pragma once

#include <string>
#include <vector>

#include "worker_slot.hpp"

namespace joule::platform {

class Counters {
 public:
  Counters() = default;
  // on: JOULE_COUNTERS=papi; task_clock: the meter needs each worker's CPU
  // time (perf::TASK-CLOCK is then added to the events, or is the only one).
  Counters(bool on, std::vector<std::string> events, bool task_clock);

  bool on() const noexcept { return on_; }
  bool task_clock() const noexcept { return task_clock_; }
  const std::vector<std::string>& names() const noexcept { return names_; }

  // On the worker's own thread, at its start and stop; the stop keeps the
  // worker's measured CPU time (task_clock) in its slot.
  void open(WorkerSlot& s, int worker);
  void close(WorkerSlot& s);
  // Around a task body, on the worker's thread: the values at its start,
  // and the difference added to the label's sums.
  void task_start(WorkerSlot& s) {
    if (on_ && s.papi.is_open()) s.papi.read(s.at_start.data());
  }
  void task_end(WorkerSlot& s, LabelAcc& acc) {
    if (on_) add_task(s, acc);
  }

 private:
  void add_task(WorkerSlot& s, LabelAcc& acc);

  bool on_ = false, task_clock_ = false;
  std::vector<std::string> events_, names_;
  int task_clock_index_ = -1;
};

}  // namespace joule::platform
