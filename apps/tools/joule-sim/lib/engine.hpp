// joule-sim's engine: runs a scenario's policy (the live code, through
// make_energy_policy) on the modelled platform and workload. Bulk-synchronous
// steps: a core's time is the sum of its objects' work * ((1-m) fmax/f + m),
// the step lasts the slowest core plus comm_s, and every core draws busy
// power while it computes and waiting power for the rest of the step (the
// emulation of Padoin's EnergyLB thesis in docs/simulator.md). Every
// policy.period steps the policy sees an Observation built as the live
// controller builds it, and its Decision applies from the
// next step: new P-states (each core of a changed domain stalls
// dvfs_latency_us), key moves (the program pauses for decision, balancing and
// migration time, cores at idle power). With a network (network_model.hpp)
// each core also spends its messages' time per step, and with a room
// (room_model.hpp) the chips' inlet air is the CRAC's supply. With noise
// (noise_model.hpp) a core loses random delays in a step: busy time (at busy
// power, in the Observation's busy_s) that is not work. With policy.guard
// every decision goes through energy::TimeGuard, as in the live controller.
// The dag kind runs a list scheduler instead (dag_engine.cpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "scenario.hpp"
#include "time_guard.hpp"

namespace joule::sim {

struct StepRecord {
  int step = 0;
  double end_s = 0;     // simulated time at the end of the step (pauses included)
  double power_w = 0;   // machine average over the step
  double mean_ghz = 0;  // over cores
  double max_temp_c = 0;
  char decision = '-';  // '-' none, 'd' dvfs, 'b' balance
};

// The lending engine's counts (lend_engine.cpp); all zero elsewhere.
struct LendStats {
  int cores = 0, ranks = 0;
  double useful_core_s = 0;    // core-seconds running tasks
  double borrowed_core_s = 0;  // of which on another rank's cores
  int lends = 0, borrows = 0;  // core lends, and borrower acquisitions
  int tasks = 0, borrowed_tasks = 0;
  double efficiency(double time_s) const {
    return time_s > 0 && cores > 0 ? useful_core_s / (time_s * cores) : 0;
  }
};

struct RunResult {
  std::string policy;
  double time_s = 0, energy_j = 0, avg_power_w = 0, avg_ghz = 0, max_temp_c = 0;
  double lb_time_s = 0;
  int dvfs_changes = 0, dvfs_calls = 0, lb_calls = 0, migrations = 0;
  std::vector<double> final_ghz;  // per core
  std::vector<double> split;      // kind split: the last iteration's shares
  int converged_at = 0;           // kind split: the splitter's first converged iteration (0: never)
  int restarts = 0;               // kind split: the splitter's recalibrations after convergence
  int remote_messages = 0;        // network: messages per step that leave their core, at the end
  double room_dt_ks = 0;          // room: integral of T_hot - T_ac over the run (K s)
  std::vector<StepRecord> steps;  // when asked for
  LendStats lending;
  bool guarded = false;  // policy.guard: the time guard filtered the policy's levels
  energy::GuardStats guard;
  std::string guard_summary;  // TimeGuard::summary() at the end
  double noise_s = 0;         // wall time lost to noise, summed over cores
};

// policy.guard: a time guard for `policy`, reset for its trigger (null when off).
std::unique_ptr<energy::TimeGuard> make_guard(const Scenario& s,
                                              const energy::EnergyPolicy* policy);
// The guard's stats and summary into r (when there is a guard).
void finish_guard(const energy::TimeGuard* guard, RunResult& r);

RunResult run_scenario(const Scenario& s, bool record_steps = false);
RunResult run_dag(const Scenario& s, bool record_steps);
RunResult run_split(const Scenario& s, bool record_steps);
RunResult run_lending(const Scenario& s, bool record_steps);
std::string objective_name(energy::Objective o);  // energy | time | edp

}  // namespace joule::sim
