// Noise: wall time a core loses to something that is not our program (an OS
// daemon, a neighbour's process preempting it). With probability `p` per
// core and per draw (a step of the step engine, a task start of the dag
// engine) a core loses a delay from the scenario's distribution:
//   bursts       delay_us, always the same
//   exponential  exponentially distributed with mean mean_us
//   uniform      uniform over 0..max_us
// Each core has its own seeded stream, so a core's delays do not depend on
// how often the others drew: a run and its baseline see the same noise.
#pragma once

#include <vector>

#include "rng.hpp"
#include "scenario.hpp"

namespace joule::sim {

class NoiseModel {
 public:
  NoiseModel(const NoiseSpec& spec, int cores);
  bool active() const { return spec_.active(); }
  // Seconds `core` loses in its next step or task (0 on a quiet core).
  double draw(int core);
  // The expected delay per draw on a noisy core, seconds.
  double mean_s() const;

 private:
  double delay_s(double u) const;

  NoiseSpec spec_;
  std::vector<bool> noisy_;  // per core
  std::vector<Rng> rng_;     // per core
};

}  // namespace joule::sim
