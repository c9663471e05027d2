// The one task-body wrapper every driver calls: it runs the task's kernel,
// times it with a steady clock, adds the time to the calling thread's total
// and, when an order trace is on, records the task. Drivers differ only in
// how they create and schedule tasks, never in what a task body does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "graph.hpp"
#include "tiled_matrix.hpp"

namespace blocked {

// The blocks a task's kernel works on: up to two inputs and the block updated.
struct Operands {
  const double* in0 = nullptr;
  const double* in1 = nullptr;
  double* inout = nullptr;
};

Operands operands_of(TiledMatrix& m, const TaskDesc& task);

// Runs task's kernel on ops, timed. Out of line, shared by every driver.
void run_task(const TaskDesc& task, const Operands& ops, std::size_t bs);

// One executed task of an order trace; times in ns since the rep started.
struct TraceRecord {
  int worker;
  TaskDesc task;
  std::int64_t start_ns;
  std::int64_t body_ns;
};

// Per-thread body time and trace, collected between two runs (never while
// tasks run).
class BodyLedger {
 public:
  using WorkerIdFn = int (*)();
  // Starts a rep: zeroes every thread's time and trace, and takes the epoch.
  static void begin_rep();
  // Sum over threads of the time spent in task bodies since begin_rep().
  static double body_seconds();
  // Also measures each body's thread CPU time (CLOCK_THREAD_CPUTIME_ID,
  // two system calls per task): unlike the steady clock it leaves out the
  // time a thread was descheduled, which matters on a shared machine.
  static void enable_cpu_clock();
  static double body_cpu_seconds();
  // Turns recording on; worker_id names the runtime's worker running a task
  // (null: threads are numbered in the order they first ran a task).
  static void enable_trace(WorkerIdFn worker_id);
  // The records since begin_rep(), all threads, sorted by worker then start.
  static std::vector<TraceRecord> trace();
};

}  // namespace blocked
