// A trace in memory, whichever file it came from (Paraver .prv or Chrome
// JSON, one process or merged): rows (one per thread), task slices, state
// slices, counters and iteration marks. joule-trace draws and summarises it.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "pop_metrics.hpp"
#include "run_stats.hpp"

namespace joule::trace_format {

struct Slice {
  std::uint64_t t0, t1;  // ns on the trace's time axis
  std::uint32_t what;    // tasks: label index; states: State
  std::uint32_t depth;   // tasks: 0 = outermost on its thread
};

struct Row {
  int process = 0;  // index into TraceModel::processes
  int worker = -1;  // -1: not a worker
  int cpu = -1;
  std::string name;
  std::vector<Slice> tasks;   // sorted by t0
  std::vector<Slice> states;  // non-idle, non-running states, sorted by t0
  bool guest = false;         // a worker on a CPU borrowed from another process
};

struct Counter {
  std::string name;  // without the " cpu N" suffix
  int process = 0;
  int cpu = -1;  // -1: not per CPU
  std::vector<std::pair<std::uint64_t, double>> samples;
};

// A CPU-lending event of a process: trace::Event kEvCpuLend .. kEvCpuReturn.
struct LendingEvent {
  std::uint64_t t;
  int process;
  int cpu;
  std::uint32_t event;
};

struct Process {
  int rank = -1;
  long pid = 0;
  std::string host;
  std::uint64_t t0 = 0, t1 = 0;  // the run's span on the trace's time axis
};

struct TraceModel {
  std::vector<Process> processes;
  std::vector<Row> rows;
  std::vector<std::string> labels;  // index 0: "End", 1: "unlabelled"
  std::vector<Counter> counters;
  struct Mark {
    std::uint64_t t, n;
    int process;
  };
  std::vector<Mark> iterations;
  std::vector<LendingEvent> lending;  // as loaded; finish() turns them into states
  std::uint64_t t0 = 0, t1 = 0;       // whole span

  std::uint32_t label_index(const std::string& name);  // adds unknown names
  void finish();  // lending periods, sorts slices, computes spans
};

// Lent and Borrowed state slices from the lending events (lending_periods.cpp):
// a CPU is lent from its lend to its reclaim, on the row of the process's
// own worker on that CPU, and borrowed from its borrow to its return, on the
// process's worker started on that CPU. Called by TraceModel::finish().
void add_lending_periods(TraceModel& m);

// Reads a .prv (with its .pcf / .info beside it, if present) or a Chrome
// .json. Throws std::runtime_error naming the file and line on bad input.
TraceModel load_trace(const std::string& path);
TraceModel load_paraver(const std::string& prv_path);
TraceModel load_chrome(const std::string& json_path);

// Statistics: per process and over the whole job.
struct ProcessSummary {
  int rank = -1;
  long pid = 0;
  PopMetrics pop;  // over the process's worker rows
};
struct TraceSummary {
  std::vector<ProcessSummary> processes;
  PopMetrics job;     // over every worker row of every process
  PopMetrics mpi_lb;  // processes as units (useful summed per process)
  std::vector<LabelRow> labels;
};
TraceSummary summarize(const TraceModel& m);
void print_summary(const TraceSummary& s, std::ostream& os);

// Splits "name cpu N" into ("name", N); cpu -1 if there is no suffix.
std::pair<std::string, int> split_cpu_suffix(const std::string& track);

}  // namespace joule::trace_format
