// What every runtime's driver shares: the command line, the rep loop with
// wall-clock and body-time measurement, the result lines and the check.
// A driver only says how its runtime creates the tasks and waits for them.
//
//   blocked_<runtime>_<compiler> [--app lu|cholesky] [--n 2048] [--bs 128]
//       [--reps 3] [--warmup 0] [--workers 2] [--check] [--cpu-clock]
//       [--order-trace FILE]
//
// One line per rep on stdout (body_cpu_s with --cpu-clock only):
//   result runtime=R compiler=C app=A n=N bs=B workers=W rep=I tasks=T
//          wall_s=S body_s=S gflops=G [body_cpu_s=S]
#pragma once

#include <string>
#include <vector>

#include "graph.hpp"
#include "task_body.hpp"
#include "tiled_matrix.hpp"

namespace blocked {

class Driver {
 public:
  virtual ~Driver() = default;
  virtual const char* runtime() const = 0;
  // Starts the runtime with `workers` threads running tasks (once).
  virtual void start(int /*workers*/) {}
  // Untimed, before and after each rep (e.g. registering data).
  virtual void prepare(TiledMatrix& /*m*/) {}
  virtual void finish(TiledMatrix& /*m*/) {}
  // Timed: creates every task of `tasks`, in order, and waits for them all.
  virtual void run(TiledMatrix& m, const std::vector<TaskDesc>& tasks) = 0;
  virtual void stop() {}
  // The runtime's worker number for order traces (null: thread order).
  virtual BodyLedger::WorkerIdFn worker_id() const { return nullptr; }
};

// Parses argv, runs the reps, prints the results; the process exit status.
int driver_main(int argc, char** argv, Driver& driver);

}  // namespace blocked
