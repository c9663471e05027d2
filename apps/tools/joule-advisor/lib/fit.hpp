// Fitting Ramapantulu's model (model.hpp) to one device's baseline runs. Time:
// W, a, m, u (and s when balanced and scatter runs share a core count) by
// least squares on log time, Nelder-Mead from a few starts; W comes straight
// from the counters (cycles × (1 − mem_stall_frac)) when the runs have
// them, as the thesis derives work cycles. Power: P = E/T is linear in
// (1, c·φ, t·φ) for a fixed γ, φ = (f/f_ref)^γ, so γ is scanned and the
// rest solved in closed form. δ (the memory stalls' frequency exponent) is
// fitted only from runs at more than one frequency, else 1 (the thesis's).
// The contention form (model.hpp) is fitted both ways and the one with the
// lower mean time error on these runs kept, unless the caller forces one.
#pragma once

#include <optional>
#include <vector>

#include "model.hpp"
#include "runs.hpp"

namespace joule::advisor {

struct FitReport {
  int runs = 0;
  double time_mean_err = 0, time_max_err = 0;  // relative, on the baseline runs
  double energy_mean_err = 0, energy_max_err = 0;
  bool work_from_counters = false;
  bool locality_fitted = false;
  bool gamma_fitted = false;  // false: one measured frequency, γ = 2 and δ = 1 assumed
  bool contention_forced = false;
  bool contention_undecided = false;  // auto, but no run tells the forms apart: overlap
  // Mean relative time error on these runs of each form tried (< 0: not tried).
  double overlap_time_err = -1, serial_time_err = -1;
};

struct FitOptions {
  std::optional<Contention> contention;  // nullopt: auto, the lower training error
};

// Fills m.time and m.power from the runs of m.device (others are ignored).
// Throws InputError when there are too few runs to fit.
FitReport fit_device(DeviceModel& m, const std::vector<Run>& runs, const FitOptions& opts = {});

// Derivative-free minimiser (Nelder-Mead) for the fit; exposed for tests.
using Objective = double (*)(const std::vector<double>& x, const void* ctx);
std::vector<double> nelder_mead(Objective f, const void* ctx, std::vector<double> start,
                                double step, int iterations);

}  // namespace joule::advisor
