// Run statistics for the end-of-run report: each thread accumulates its own
// WorkerStats without locks; RunStats combines them at the end into the POP
// metrics, per-label task statistics and lending counts.
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "pop_metrics.hpp"

namespace joule::trace_format {

struct LabelStats {
  std::uint64_t count = 0;
  std::uint64_t total_ns = 0;
  std::uint64_t max_ns = 0;
};

enum Lending : int { kLend = 0, kBorrow = 1, kReclaim = 2, kReturn = 3, kNumLending = 4 };

// One thread's tallies; only that thread writes them.
class WorkerStats {
 public:
  // A task body ran for dur_ns; top_level is false for a task nested inside
  // another task on the same thread (its time is already in the outer one).
  void task(std::uint32_t label, std::uint64_t dur_ns, bool top_level) {
    if (label >= labels_.size()) labels_.resize(label + 1);
    LabelStats& s = labels_[label];
    ++s.count;
    s.total_ns += dur_ns;
    if (dur_ns > s.max_ns) s.max_ns = dur_ns;
    ++tasks_;
    if (top_level) useful_ns_ += dur_ns;
  }
  void sleep(std::uint64_t ns) { sleep_ns_ += ns; }
  void created() { ++created_; }
  void lending(Lending what) { ++lending_[what]; }

  std::uint64_t useful_ns() const { return useful_ns_; }
  std::uint64_t sleep_ns() const { return sleep_ns_; }
  std::uint64_t tasks() const { return tasks_; }
  std::uint64_t created_tasks() const { return created_; }
  const std::vector<LabelStats>& labels() const { return labels_; }
  const std::array<std::uint64_t, kNumLending>& lending_counts() const { return lending_; }

 private:
  std::uint64_t useful_ns_ = 0;
  std::uint64_t sleep_ns_ = 0;
  std::uint64_t tasks_ = 0;
  std::uint64_t created_ = 0;
  std::vector<LabelStats> labels_;  // indexed by label id
  std::array<std::uint64_t, kNumLending> lending_{};
};

struct LabelRow {
  std::string name;
  LabelStats stats;
  double mean_us() const { return stats.count ? double(stats.total_ns) / stats.count * 1e-3 : 0; }
};

class RunStats {
 public:
  // worker < 0: a thread that is not a worker (external spawner, sampler);
  // guest: a worker on a CPU borrowed from another process. Both count in the
  // label table but not as units of the POP metrics, which describe the
  // process's own CPUs (guests' useful time is reported beside them).
  void add_thread(int worker, int cpu, const WorkerStats& s, bool guest = false);
  void set_elapsed_ns(std::uint64_t ns) { elapsed_ns_ = ns; }
  // Names by label id (id 0 is unused, 1 is "unlabelled").
  void set_label_names(std::vector<std::string> names) { names_ = std::move(names); }

  PopMetrics pop() const;
  std::vector<LabelRow> labels() const;  // by total time, largest first
  std::array<std::uint64_t, kNumLending> lending() const;
  std::uint64_t tasks() const;
  std::uint64_t guest_useful_ns() const;
  void print(std::ostream& os) const;

 private:
  struct Thread {
    int worker, cpu;
    WorkerStats stats;
    bool guest;
  };
  std::vector<Thread> threads_;
  std::vector<std::string> names_;
  std::uint64_t elapsed_ns_ = 0;
};

}  // namespace joule::trace_format
