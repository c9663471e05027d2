// CPU masks: how many cores a process should keep, and at which P-state, for
// the parallelism it shows. Fewer cores at a higher frequency pay less static
// power per unit of work; more cores at a lower one pay less dynamic power;
// which wins depends on the power model. Pure: the energy controller parks or
// lends the other cores.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace joule::energy {

struct MaskInput {
  // Average busy cores over the window, in cores running at fmax (the sum
  // of work_s over the window's length).
  double parallelism = 0;
  int cores = 0;                       // cores the process may use now
  std::vector<std::uint32_t> pstates;  // ascending kHz
  std::vector<double> busy_watts;      // one busy core at each P-state
  double idle_watts = 0;               // an active core with nothing to run
  double parked_watts = 0;             // a parked or lent core
  double time_budget = 0.01;           // allowed slowdown, fraction
};

struct MaskChoice {
  int cores = 0;
  int level = 0;            // index into MaskInput::pstates
  double energy_ratio = 1;  // modelled energy against all cores at fmax
  double time_ratio = 1;    // modelled time against all cores at fmax
  std::string why;
};

// The model, per window of length 1 at fmax (work W = parallelism): n cores
// at f are busy W * fmax / f core-seconds and take T = max(1, W fmax/(n f));
// energy = busy * P(f) + (n T - busy) * idle + (cores - n) T * parked. The
// choice minimises energy subject to T <= 1 + time_budget (ties: fewer
// cores, then higher f); the baseline is all cores at fmax.
MaskChoice choose_core_mask(const MaskInput& in);

}  // namespace joule::energy
