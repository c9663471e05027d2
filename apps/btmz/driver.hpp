// The parts of btmz every parallel version shares: options, the zone set-up
// and assignment to MPI ranks, the step loop with the boundary exchange, the
// verification against a one-rank serial run, and the report. A version only
// says how one step's phases run over a rank's zones.
#pragma once

#include <string>
#include <vector>

#include "zone_field.hpp"

namespace btmz {

struct Backend {
  const char* name;
  // Called once before the run with the requested thread count (0: default).
  void (*start)(int threads);
  void (*stop)();
  int (*threads)();
  // One ADI step of every zone in `zones` (all five phases, each phase
  // finished before the next starts within a zone).
  void (*step)(std::vector<ZoneField*>& zones, const Numerics& num);
};

// Runs the whole app; returns the exit status (0 PASS, 1 wrong answer, 2 bad input).
int run_btmz(int argc, char** argv, const Backend& backend);

// The phases of one zone, run serially (the reference and the 1-thread case).
void step_zone_serial(ZoneField& z, const Numerics& num);

}  // namespace btmz
