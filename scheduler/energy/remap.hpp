// Affinity-key -> core remapping, shared by the balancing policies. Loads are
// in work units (seconds at fmax, KeyLoad::work_s), so a key weighs the same
// wherever it ran. Both functions return only the keys whose core changes;
// every key keeps exactly one core.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "energy_policy.hpp"

namespace joule::energy {

using Moves = std::vector<std::pair<std::uint64_t, int>>;

struct RemapProblem {
  std::vector<int> cores;        // the cores that may give or take keys
  std::vector<double> base;      // per Observation core: load no key carries
  std::vector<double> capacity;  // per Observation core: share weight (1, or a frequency)
};

// Per core: its work_s minus the work of the keys that ran on it (>= 0).
std::vector<double> base_loads(const Observation& obs);
// A problem over `cores` with equal capacities.
RemapProblem equal_problem(const Observation& obs, std::vector<int> cores);

// Every key on the problem's cores, largest first, onto the core with the
// least load per capacity (GreedyLB's rule: ignores the current placement).
Moves greedy_remap(const std::vector<KeyLoad>& keys, const RemapProblem& p);

// Only cores above (1 + tolerance) x their share donate: the most overloaded
// core gives its largest key that fits under the share of an underloaded core
// (most headroom first), until no overloaded core has a key that fits. Few
// moves; receivers never become overloaded, so no key moves twice.
Moves refine_remap(const std::vector<KeyLoad>& keys, const RemapProblem& p, double tolerance);

// RandCentLB (randcent.cpp): every key onto a core drawn from a hash of the key
// and `salt` (the iteration), ignoring loads: the EnergyLB thesis's worst case.
// A hash instead of a generator keeps the policy stateless and repeatable.
Moves randcent_remap(const std::vector<KeyLoad>& keys, const RemapProblem& p, std::uint64_t salt);

// ScotchLB-like static mapping (partition.cpp): recursive bisection of the
// key graph (`edges`) over halves of the core list (cores are numbered
// chip by chip, so the first cuts fall between chips), each half grown from
// one key along its heaviest links up to its load share, then refined by
// moving boundary keys that cut less traffic while each side stays within
// (1 + tolerance) of its share. Ignores the current placement, as GreedyLB.
// Without edges it cuts the key order into contiguous blocks.
Moves partition_remap(const std::vector<KeyLoad>& keys, const std::vector<KeyEdge>& edges,
                      const RemapProblem& p, double tolerance);

}  // namespace joule::energy
