// joule-sim's outputs: the one-line result, the comparison with policy
// none, the per-step CSV and an SVG of frequency and power over time.
// Fixed formats (printf with set precisions) so equal runs print equal bytes.
#pragma once

#include <string>
#include <vector>

#include "engine.hpp"

namespace joule::sim {

// time_s=... energy_j=... avg_power_w=... dvfs_changes=... lb_calls=...
// migrations=... max_temp_c=... (then dvfs_calls, avg_ghz, lb_time_s)
std::string result_line(const RunResult& r);
// vs none: dtime=+0.00% denergy=-14.78% dpower=... (signed percentages)
std::string delta_line(const RunResult& r, const RunResult& base);
// Sarood & Kale's ("Cool" LB) normalised metrics against the no-DVFS run:
// t_norm (Eq. 2), e_norm (Eq. 4), c_norm (Eq. 5: with a room model the ratio of
// the integrals of T_hot - T_ac; without, T_hot - T_ac proportional to the
// machine's average power: constant air flow removes the machine's heat) and
// the total with cooling 40 % of it at the base (0.6 e_norm + 0.4 c_norm).
std::string thermal_line(const RunResult& r, const RunResult& base);
// network: remote_messages=... (per step, messages that leave their core at the end)
std::string network_line(const RunResult& r);
// lending: mode=lewi policy=auto ranks=2 cores=2 efficiency=0.9990 tasks=...
// borrowed_tasks=... borrowed_core_s=... lends=... borrows=...
std::string lending_line(const Scenario& s, const RunResult& r);
// vs lending off: dtime=... denergy=... speedup=1.4990 efficiency=0.6667->0.9990
std::string lending_delta_line(const RunResult& r, const RunResult& off);
// policy.guard: guard: trips=2 margin=0.350 max_margin=0.380 loss=+0.0021
// run_loss=+0.0093 rebases=5 held=123 noise=0.000 noise_s=0.3200 (fractions; noise_s
// is the run's noise delay summed over cores)
std::string guard_line(const RunResult& r);
// kind split: method=... split=0.7000,0.3000 converged_at=12 restarts=0
std::string split_line(const RunResult& r);
// A table of several runs with ratios to the first (the baseline).
std::string compare_table(const std::vector<RunResult>& runs);
std::string steps_csv(const RunResult& r);
std::string steps_svg(const RunResult& r);

}  // namespace joule::sim
