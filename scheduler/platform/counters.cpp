#include "counters.hpp"

#include <algorithm>

#include "log.hpp"

namespace joule::platform {

Counters::Counters(bool on, std::vector<std::string> events, bool task_clock)
    : on_(on), task_clock_(task_clock), events_(std::move(events)) {
  if (task_clock_ && std::find(events_.begin(), events_.end(), "perf::TASK-CLOCK") == events_.end())
    events_.push_back("perf::TASK-CLOCK");
  if (task_clock_ && !on_) events_ = {"perf::TASK-CLOCK"};
}

void Counters::open(WorkerSlot& s, int worker) {
  if (events_.empty() || (!on_ && !task_clock_)) return;
  std::vector<std::string> skipped;
  std::string why;
  if (!s.papi.open(events_, &skipped, &why)) {
    core::warn_once("counters", "PAPI counters unavailable (" + why + "); tasks are not counted");
    return;
  }
  if (!skipped.empty() && on_) {
    std::string list;
    for (auto& e : skipped) list += (list.empty() ? "" : ", ") + e;
    core::warn_once("counters",
                    "PAPI counters: " + list + " not available here; counting the others");
  }
  if (worker == 0) {
    names_ = s.papi.names();
    auto it = std::find(names_.begin(), names_.end(), "perf::TASK-CLOCK");
    task_clock_index_ = it == names_.end() ? -1 : int(it - names_.begin());
  }
  s.at_start.assign(s.papi.names().size(), 0);
  s.now_values.assign(s.papi.names().size(), 0);
}

void Counters::close(WorkerSlot& s) {
  if (s.papi.is_open() && task_clock_ && task_clock_index_ >= 0 && s.papi.read(s.now_values.data()))
    s.task_clock_ns = s.now_values[std::size_t(task_clock_index_)];
  s.papi.close();
}

void Counters::add_task(WorkerSlot& s, LabelAcc& acc) {
  if (!s.papi.is_open() || !s.papi.read(s.now_values.data())) return;
  acc.counters.resize(s.now_values.size(), 0);
  for (std::size_t i = 0; i < s.now_values.size(); ++i)
    acc.counters[i] += s.now_values[i] - s.at_start[i];
}

}  // namespace joule::platform
