// The energy-policy interface: a policy maps an observed state (per core and
// per window: busy, idle, stretch; per affinity key: load; ready-queue depths;
// the pending graph's slack; frequencies, domains, temperatures; the measured
// switch cost) to a decision (a P-state per DVFS domain, affinity-key -> core
// moves, how many cores to keep). Policies see plain data only: the same code
// runs in the live runtime (the platform layer's energy controller fills the
// Observation and applies the Decision) and in joule-sim.
//
// A policy holds no locks and touches nothing outside its arguments and its
// own members; the caller serialises calls. A new policy is one file in this
// folder plus one line in energy_registry.cpp.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace joule::energy {

// One DVFS domain: a core (per-core DVFS) or a chip (per-chip DVFS).
struct DomainView {
  std::vector<int> cores;              // indices into Observation::cores
  std::vector<std::uint32_t> pstates;  // ascending kHz
  std::vector<double> busy_watts;      // power model: one busy core at each P-state
  int level = 0;                       // current index into pstates
  int chip = 0;                        // index into Observation::chips
  std::uint32_t khz() const { return pstates.empty() ? 0 : pstates[std::size_t(level)]; }
  std::uint32_t fmax() const { return pstates.empty() ? 0 : pstates.back(); }
  std::uint32_t fmin() const { return pstates.empty() ? 0 : pstates.front(); }
};

// One core (one worker's CPU) over the window since the last decision.
struct CoreView {
  int domain = 0;
  int chip = 0;
  double busy_s = 0;     // wall time in task bodies, emulated stretch included
  double idle_s = 0;     // spinning, sleeping or parked
  double stretch_s = 0;  // the part of busy_s added by emulated DVFS
  // Frequency-independent work: busy time weighted by f/fmax over the
  // P-states it ran at ("seconds at fmax"). Equals busy_s at fmax.
  double work_s = 0;
  int ready = 0;                  // ready tasks queued for this core now
  bool running = false;           // a task body runs on it now
  bool running_critical = false;  // ... and other tasks wait on that task
  bool parked = false;            // the core is lent or parked
};

struct ChipView {
  double temperature_c = NAN;  // NaN: unknown
  double uncore_watts = 0;
};

// Load of one affinity key over the window, in seconds at fmax.
struct KeyLoad {
  std::uint64_t key = 0;
  int core = 0;  // where its tasks ran (the current mapping)
  double work_s = 0;
};

// Communication between two affinity keys over the window, when the caller
// knows it (joule-sim's network model); the live runtime leaves it empty.
struct KeyEdge {
  std::uint64_t a = 0, b = 0;
  double bytes = 0;
};

struct Observation {
  std::uint64_t now_ns = 0;
  double window_s = 0;          // wall time the loads cover
  std::uint64_t iteration = 0;  // joule::iteration_boundary() count; 0 = none yet
  std::vector<CoreView> cores;
  std::vector<DomainView> domains;
  std::vector<ChipView> chips;
  std::vector<KeyLoad> keys;   // empty when no task carries an affinity key
  std::vector<KeyEdge> edges;  // key-to-key traffic; empty when unknown
  double idle_watts = 0;       // power model: one sleeping core
  double switch_cost_s = 0;    // measured cost of one frequency change
  // Remaining critical path of the pending graph, from cost hints or per-label
  // mean body times (0: unknown), and the total pending work it was taken from.
  double critical_path_s = 0;
  double pending_work_s = 0;
};

// What a policy decided. Empty members mean "leave as is".
struct Decision {
  enum class Kind { none, dvfs, balance, mask };
  Kind kind = Kind::none;
  std::vector<int> domain_level;                     // one P-state index per domain
  std::vector<std::pair<std::uint64_t, int>> moves;  // affinity key -> core
  int active_cores = -1;                             // cores to keep; -1 = unchanged
  std::string why;                                   // one line for the trace and report
};

enum class Quantise { round, ceil };
enum class LoadNorm { work, as_written };
enum class Balancer { none, greedy, refine, randcent, partition };
enum class OnBalance { either, reset_max, lb_then_dvfs };
enum class Objective { energy, time, edp };

// The knobs (EnergySettings::options, set by config_keys_energy.cpp).
struct Options {
  double threshold = 0;  // max/min load ratio that calls the balancer; 0 = fmax/fmin
  Quantise quantise = Quantise::ceil;
  LoadNorm load_norm = LoadNorm::work;
  Balancer balancer = Balancer::none;
  OnBalance on_balance = OnBalance::either;
  int period = 1;             // iterations between decisions
  double window_s = 0.02;     // queue-depth's sliding window
  double time_budget = 0.01;  // allowed slowdown, fraction
  double t_max_c = 0;         // templb: 0 = off
  double tolerance = 0.03;    // refine / partition load tolerance
  double mpi_slack_s = 500e-6;
  Objective objective = Objective::energy;
  bool masks = true;
  bool guard = true;        // the time guard (time_guard.hpp) filters the policy's levels
  bool guard_slack = true;  // ... trusting a critical path at the top (time_guard_slack.cpp)
  // Not in Config: fixed by the policies' authors, exposed for tests and the simulator.
  double t_band_c = 1.0;       // templb: step up only below t_max_c - t_band_c
  double switch_payback = 20;  // queue-depth: change only if window_s > this * switch_cost_s
  int down_windows = 2;        // queue-depth: consecutive windows that must ask for lower
  double mpi_lend_s = 5e-3;    // mpi-slack: a blocking call this long lends its CPU
};

// When the controller calls decide().
enum class Trigger {
  iterations,  // every Options::period iteration boundaries
  periodic,    // every Options::window_s of wall time
};

class EnergyPolicy {
 public:
  virtual ~EnergyPolicy() = default;
  virtual const char* name() const = 0;
  virtual Trigger trigger() const = 0;
  virtual Decision decide(const Observation& obs) = 0;
  // Whether the time guard (time_guard.hpp) may raise this policy's levels:
  // not where they are a limit rather than a saving (templb's temperature).
  virtual bool guardable() const { return true; }
};

// Every registered name, "auto" and "none" included, for messages and docs.
std::vector<std::string> energy_policy_names();
// Throws std::invalid_argument for an unknown name. "auto" is resolved by
// the caller first (resolve_auto).
std::unique_ptr<EnergyPolicy> make_energy_policy(std::string_view name, const Options& opt);
// The policy "auto" stands for: fg-energylb (cg-energylb with per-chip DVFS)
// when the program marks iterations and uses affinity keys, queue-depth
// otherwise. mpi-slack runs beside it inside libjoule-mpi.
std::string resolve_auto(bool iterative_with_keys, bool per_chip_dvfs);

}  // namespace joule::energy
