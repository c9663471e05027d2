// Observations for the policy tests: cores with loads, per-core or per-chip
// domains on the P-state table of Padoin's EnergyLB thesis, and helpers to
// read decisions.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "energy_policy.hpp"
#include "step_sim.hpp"

namespace joule::energy::test {

// One core per entry of `work` (seconds at fmax, busy = work at fmax);
// `per_chip` cores share a chip. Per-core domains unless chip_domains.
inline Observation make_obs(const std::vector<double>& work, int per_chip = 1,
                            bool chip_domains = false,
                            const std::vector<std::uint32_t>& pstates = seed_pstates()) {
  Observation obs;
  obs.window_s = 1.0;
  const int n = int(work.size()), chips = (n + per_chip - 1) / per_chip;
  for (int c = 0; c < chips; ++c) obs.chips.emplace_back();
  for (int i = 0; i < n; ++i) {
    CoreView core;
    core.chip = i / per_chip;
    core.domain = chip_domains ? core.chip : i;
    core.busy_s = core.work_s = work[std::size_t(i)];
    obs.cores.push_back(core);
  }
  const int domains = chip_domains ? chips : n;
  for (int d = 0; d < domains; ++d) {
    DomainView dom;
    dom.pstates = pstates;
    dom.level = int(pstates.size()) - 1;
    dom.chip = chip_domains ? d : d / per_chip;
    for (auto khz : pstates) dom.busy_watts.push_back(seed_linear_watts(khz / 1e6));
    obs.domains.push_back(dom);
  }
  for (int i = 0; i < n; ++i)
    obs.domains[std::size_t(obs.cores[std::size_t(i)].domain)].cores.push_back(i);
  return obs;
}

// Adds one key per load, on `core`, and raises that core's load to match.
inline void add_keys(Observation& obs, int core, const std::vector<double>& loads,
                     std::uint64_t& next_key) {
  for (double w : loads) obs.keys.push_back({next_key++, core, w});
  double sum = 0;
  for (const auto& k : obs.keys)
    if (k.core == core) sum += k.work_s;
  auto& c = obs.cores[std::size_t(core)];
  c.work_s = c.busy_s = std::max(c.work_s, sum);
}

inline double ghz_of(const Observation& obs, const Decision& d, int domain) {
  return obs.domains[std::size_t(domain)]
             .pstates[std::size_t(d.domain_level[std::size_t(domain)])] /
         1e6;
}

// key -> core after applying `moves`; fails the test on a duplicate move.
inline std::map<std::uint64_t, int> apply_moves(const Observation& obs, const Decision& d) {
  std::map<std::uint64_t, int> where;
  for (const auto& k : obs.keys) where[k.key] = k.core;
  std::map<std::uint64_t, int> seen;
  for (const auto& [key, core] : d.moves) {
    EXPECT_EQ(where.count(key), 1u) << "a move names an unknown key " << key;
    EXPECT_EQ(seen[key]++, 0) << "key " << key << " moved twice";
    where[key] = core;
  }
  return where;
}

}  // namespace joule::energy::test
