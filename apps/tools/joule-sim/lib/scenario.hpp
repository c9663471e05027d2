// A joule-sim scenario: the platform, the workload, the policy and the cost
// of load balancing, all from flat "section.key" settings. A TOML file and
// `--set key=value` overrides become one list of settings (scenario_source),
// and every setting goes through one key table (scenario.cpp), which names
// the key, its origin (file:line or --set) and the allowed values on error.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "energy_policy.hpp"

namespace joule::sim {

// A bad scenario: the message names the key, where it came from and what is allowed.
struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// P = a + b*f (linear), P = a + b*f^3 (cubic), or one entry per P-state (table).
struct PowerModel {
  enum class Kind { linear, cubic, table };
  Kind kind = Kind::linear;
  double a = 4.5, b = 13.25;  // linear fit through Padoin's §5.1.1 powers
  std::vector<double> table;  // watts, one per P-state, ascending
  double watts(double ghz, std::size_t level) const;
};

struct PlatformSpec {
  int chips = 1;
  int cores_per_chip = 2;
  std::vector<double> pstates_ghz;  // ascending; default 1.2 .. 2.4 by 0.1
  PowerModel power;                 // one busy core
  bool wait_busy = true;            // a waiting core polls: busy power at its P-state
  double wait_power_w = 0;          // otherwise: watts of a waiting core
  double idle_power_w = -1;         // a core during LB pauses; < 0: as a waiting core
  double uncore_w = 0;              // per chip, always on
  bool per_chip_dvfs = false;       // DVFS domains: a chip, or a core
  double dvfs_latency_us = 0;       // a core stalls this long after its frequency changes
  double air_c = 22, tmax_c = 0;    // RC thermal model: inlet air; templb's T_max (0 = off)
  double thermal_alpha = 1, thermal_beta = 0.6, thermal_gamma = 0, thermal_tau_s = 20;
  std::vector<double> hotspot_c;  // extra inlet K per chip (cycled over chips)
  int pes() const { return chips * cores_per_chip; }
};

struct WorkloadSpec {
  std::string kind = "static";
  std::vector<double> loads;  // static/pils: per PE (or per object) s/step at fmax
  int objects = 0;            // 0: one per PE (static) or the kind's default
  int steps = 100;
  std::uint64_t seed = 12345;
  double min_s = 0.001, max_s = 0.01;  // lb_test: object load range
  double imbalance = 1;                // lb_test/stencil: max/min PE scale (geometric)
  double drift = 0;                    // lb_test: relative random walk per step
  double noise = 0.05;                 // stencil/dynamic: +- relative object noise
  double comm_s = 0;                   // stencil: frequency-independent time per step
  double mem_bound = 0;                // fraction of work that does not scale with f
  double object_mb = 0.01;             // bytes moved per migration
  std::string shape = "ondes3d";       // dynamic: ondes3d | ondes3d-cg | lulesh | points
  std::vector<double> profile;         // dynamic shape "points": frac,ratio,frac,ratio,...
  bool per_chip = false;               // dynamic/lb_test: imbalance between chips, not PEs
  std::string zones = "4x4";           // btmz: zones in x and y
  double zone_ratio = 20;              // btmz: largest / smallest zone
  std::string zone_map = "block";      // btmz: block | binpack (largest first, least loaded)
  double total_s = 1.0;                // btmz/pils: total work per step at fmax
  double grain = 1;                    // pils: 1 / parallel regions per step
  int chain = 20;                      // dag: chain length
  int independents = 200;              // dag: independent tasks
  double task_s = 0.001;               // dag: cost of a task at fmax
  double side = 0;                     // dag: each chain task releases one of side x task_s
  double task_us = 1000;               // lending engine: task granularity at fmax
};

// The DLB thesis's LeWI between the MPI ranks of one node (lend_engine.cpp): the
// platform's cores are split evenly over `ranks`; a rank out of work lends
// cores, ranks with ready tasks borrow them after `borrow_latency_us`.
struct LendingSpec {
  bool lewi = false;      // mode: off | lewi
  bool auto_lend = true;  // policy auto: an idle worker lends at once; mpi: only in the call
  int ranks = 0;          // 0: one per core
  double borrow_latency_us = 0;
  // The lending engine replaces the step engine when lending is on or ranks are given.
  bool active() const { return lewi || ranks > 0; }
};

// Messages between objects (network_model.hpp): graph none | ring |
// ring_random; one msg_kb message per neighbour per step; bandwidth by
// distance (cores of a chip, chips of a node, nodes).
struct NetworkSpec {
  std::string graph = "none";
  int degree = 1;              // ring: links to the next `degree` objects
  double random_pairs = 0.01;  // ring_random: extra links, fraction of all pairs
  double msg_kb = 16;          // kNeighbor's message
  double latency_us = 0;       // per message that leaves its core
  double core_gbs = 20, chip_gbs = 10, node_gbs = 1.25;
  int chips_per_node = 1;
};

// The "Cool" LB's machine room (room_model.hpp): a CRAC drives the exhaust air
// T_hot to `setpoint_c` and supplies T_ac = T_hot - Q / airflow, where Q is
// the machine's power plus the heat leaking in from the building; T_ac is
// the chips' inlet air. Off while setpoint_c = 0 (inlet = platform.air_c).
struct RoomSpec {
  double setpoint_c = 0;
  double airflow_w_per_k = 800;  // c_air * f_ac
  double envelope_w_per_k = 0;   // UA of the room's walls
  double building_c = 25;
  double base_setpoint_c = 0;  // the no-DVFS baseline's set point; 0: setpoint_c
  bool active() const { return setpoint_c > 0; }
};

// Random per-core delays (noise_model.hpp): wall time a core loses to
// another process. With probability p per core per step (dag: per task) a
// delay from `distribution`; `cores` lists the noisy cores (empty: all).
struct NoiseSpec {
  enum class Distribution { none, bursts, exponential, uniform };
  Distribution distribution = Distribution::none;
  double p = 1;            // probability of a delay per draw
  double delay_us = 0;     // bursts: every delay
  double mean_us = 0;      // exponential: the mean delay
  double max_us = 0;       // uniform: delays over 0..max_us
  std::vector<int> cores;  // the noisy cores; empty: every core
  std::uint64_t seed = 1;
  bool active() const { return distribution != Distribution::none; }
};

struct LbCost {
  double decision_s = 0;       // every policy call pauses the program this long
  double balance_s = 0;        // extra, per call that runs the balancer
  double bandwidth_gbs = 10;   // migration data rate
  double per_migration_s = 0;  // fixed cost per migrated object
};

struct PolicySpec {
  std::string name = "fg-energylb";  // the two-PE command line runs it
  energy::Options opt;               // period, threshold, quantise, load_norm, balancer, ...
};

// Cabrera et al.'s work splitter on heterogeneous devices (workload.kind = split):
// each iteration splits `work` units over the devices; a device computes at
// `rates` units/s drawing busy_w, then waits for the slowest at idle_w.
struct SplitSpec {
  std::vector<double> rates = {1.0, 0.7};  // K20c-like, M2090-like (ours)
  std::vector<double> busy_w = {120, 150};
  std::vector<double> idle_w = {30, 30};
  std::string method = "splitter";  // even | proportional | splitter
  energy::Objective objective = energy::Objective::energy;
  double work = 1;  // units per iteration
  double lb_s = 0;  // per iteration, dynamic methods only: measuring and deciding, devices idle
  std::vector<double> rates_end;  // rates at the last iteration (linear drift); empty: fixed
  double p0 = 0;                  // splitter: restart probability after convergence
  double p_step = 0.01;           // splitter: its growth per converged iteration
};

struct Scenario {
  SplitSpec split;
  PlatformSpec platform;
  WorkloadSpec workload;
  PolicySpec policy;
  LbCost lb;
  LendingSpec lending;
  NetworkSpec network;
  RoomSpec room;
  NoiseSpec noise;
};

// The run every delta is taken against: policy none (no DVFS, no balancing),
// in the room at its base set point.
Scenario baseline_of(const Scenario& s);

// One setting: "section.key", its value as text, and where it came from.
struct Setting {
  std::string key, value, origin;  // origin: "file.toml:12" or "--set"
};

// The settings of a TOML file, in file order (arrays joined with commas).
std::vector<Setting> settings_from_toml(const std::string& path);
// "key=value" from the command line.
Setting setting_from_arg(const std::string& arg);
// A scenario from the defaults plus `settings` in order (later wins).
Scenario make_scenario(const std::vector<Setting>& settings);
// Every key with its allowed values, one per line (for --help and errors).
std::string describe_keys();

}  // namespace joule::sim
