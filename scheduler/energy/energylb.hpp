// What FG- and CG-EnergyLB share (Padoin's thesis §4.1): weighted loads, the
// max/min ratio against the threshold, the target P-state of a relative load,
// and the balancer call.
#pragma once

#include <string>
#include <vector>

#include "energy_policy.hpp"
#include "remap.hpp"

namespace joule::energy {

// Wload per core, 0 for parked cores. LoadNorm::work: work_s (busy time
// weighted by f/fmax, stable under DVFS). LoadNorm::as_written: busy_s / f in
// GHz, the thesis's literal formula, which flips frequencies once they differ.
std::vector<double> core_loads(const Observation& obs, LoadNorm norm);

// max/min over `loads`; +inf when the minimum is 0 (and 1 when empty).
double load_ratio(const std::vector<double>& loads);

// Options::threshold, or fmax/fmin of the P-state tables when it is 0.
double effective_threshold(const Observation& obs, const Options& opt);

// Index of the P-state for `target_khz` in an ascending table: round = the
// nearest (ties up), ceil = the lowest at or above. Clamped to the table.
int quantise_level(const std::vector<std::uint32_t>& pstates, double target_khz, Quantise q);

// The level of a domain whose most loaded part has relative load `rel`
// (W / Wmax): target rel * fmax, clamped to [fmin, fmax], quantised.
int relative_level(const DomainView& d, double rel, Quantise q);

// The active (not parked) cores, in order.
std::vector<int> active_cores(const Observation& obs);

// Runs Options::balancer over `cores` (greedy, refine or partition with
// tolerance, randcent salted with the iteration).
Moves run_balancer(const Observation& obs, const Options& opt, std::vector<int> cores);

// Core loads as they would be after `moves`, in the same normalisation:
// a key's work weighs work_s, or (as written) its busy time at the
// receiving core's frequency divided by that frequency.
std::vector<double> predicted_loads(const Observation& obs, std::vector<double> loads,
                                    const Moves& moves, LoadNorm norm);

// One level per domain from each core's relative load (W / Wmax; negative:
// no opinion): a domain follows its most loaded core, so a shared domain is
// never slowed below what its busiest core needs; a domain with no opinion
// keeps its level.
std::vector<int> dvfs_levels(const Observation& obs, const std::vector<double>& rel, Quantise q);

// Every domain at its top P-state.
std::vector<int> top_levels(const Observation& obs);

// "ratio 1.67 < 2.00: dvfs" and the like.
std::string ratio_text(double ratio, double threshold, const char* action);

}  // namespace joule::energy
