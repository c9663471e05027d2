// A tiny deterministic bulk-synchronous simulator for the policy tests
// (the emulation in docs/simulator.md): PE i does work[i] seconds-at-fmax per
// step; a step lasts the slowest PE's work * fmax / f; every PE draws busy
// power at its frequency for the whole step (waiting cores poll, as in
// Padoin's EnergyLB thesis). Every `period` steps the policy sees the
// window's loads and its decision applies from the next step. One PE per
// core, domain and chip. joule-sim (docs/simulator.md) is the full model;
// this one only drives the real policies.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "energy_policy.hpp"

namespace joule::energy::test {

struct StepSimSetup {
  std::vector<double> work;  // per PE: seconds per step at fmax
  int steps = 100;
  int period = 10;
  std::vector<std::uint32_t> pstates;       // ascending kHz; every PE starts at fmax
  std::function<double(double ghz)> watts;  // one busy (or polling) core
};

struct StepSimResult {
  double time_s = 0;
  double energy_j = 0;
  std::vector<std::vector<int>> levels;  // per decision: the levels it set
  std::vector<Decision::Kind> kinds;     // per decision
};

StepSimResult run_step_sim(const std::string& policy, const Options& opt, const StepSimSetup& s);

// The P-state table of Padoin's thesis (1.2 .. 2.4 GHz by 0.1) and a linear
// power fit through its §5.1.1 powers.
std::vector<std::uint32_t> seed_pstates();
double seed_linear_watts(double ghz);  // 4.5 + 13.25 f
double seed_cubic_watts(double ghz);   // 18.13 + 1.3145 f^3

}  // namespace joule::energy::test
