// What every runtime's jacobi shares: the command line (CLI11), the timed
// iterations, the check against the sequential reference and the output.
// A runtime's version only says how it runs one iteration's block sweeps.
//
//   jacobi[_RUNTIME] [--n N] [--bs B] [--iterations I] [--sweeps S]
//                    [--imbalance F] [--heavy-blocks K] [--workers W] [--no-check]
//
// Prints the settings, the time and GFLOP/s, then one machine-readable line
//   result app=jacobi runtime=R workers=W size=N block=B time_s=S gflops=G
// (scripts/bench apps reads it). Exit status: 0 on a verified result, 1 on
// a wrong one, 2 on bad arguments or a runtime error.
#pragma once

#include "grid.hpp"

namespace jacobi {

class Runner {
 public:
  virtual ~Runner() = default;
  virtual const char* runtime() const = 0;
  // Starts the runtime; workers 0: its default (one per CPU).
  virtual void start(int /*workers*/) {}
  // The worker count the runtime actually uses.
  virtual int workers() const = 0;
  // Untimed, once before the iterations (e.g. registering data).
  virtual void prepare(Grid& /*g*/, const Problem& /*p*/) {}
  // One iteration: every block of buffer src swept into buffer 1 - src, all
  // finished on return.
  virtual void iterate(Grid& g, const Problem& p, int src) = 0;
  virtual void stop() {}
};

int app_main(int argc, char** argv, Runner& runner);

}  // namespace jacobi
