// The time guard: a closed loop around any policy's frequency decisions, so
// that an energy policy keeps its time promise (Options::time_budget) on a
// machine that is not quiet. EAR's min_energy policy bounds the measured time
// loss the same way (Corbalan et al., "EAR: Energy management framework for
// supercomputers"): measure what the program pays, compare it with the
// unslowed run, step back when the loss exceeds the budget.
//
// A unit is what the program pays for: one iteration (iterative policies:
// its wall time) or one window (periodic policies: wall time per second of
// work done, the inverse of throughput). The guard
//  - takes a baseline with every domain at its top P-state: a run of units
//    at start, after a phase change (the critical work per iteration moved)
//    and when a loss persists with nothing slowed (the program got slower,
//    not the policy's doing); and one unit at the top every probe_units
//    units, added to the baseline's pool, so that the baseline sees the
//    same noise over time as the units it is compared with (the way the
//    benchmarks interleave their runs);
//  - leaves every slowed domain a frequency margin: the P-state nearest to
//    the policy's frequency x (1 + margin). The margin grows with the
//    noise it sees (a high quantile of the units' spread) and with its trips,
//    and shrinks while the loss stays well inside the budget;
//  - trips when the loss over the last loss_units units exceeds the budget by
//    more than its standard error (so that noise alone rarely trips it): the
//    slowed domains go halfway back to the top and are held there
//    (hold_units, doubling on trips in a row) before the policy may lower
//    them again. Two losses are watched: the units' cost against the
//    baseline, and (iterative policies, when some domain runs at the top)
//    how much later the slowed cores finished than the unslowed ones in the
//    same iteration, a paired measure that noise common to every core does
//    not move.
// With GuardOptions::slack (time_guard_slack.cpp) a unit whose critical path
// ran at the top while the slowed cores kept slack counts as a baseline
// unit: slack reclamation off the critical path costs no time (Kappiah et
// al., "Just In Time Dynamic Voltage Scaling", SC'05; Rountree et al.,
// "Adagio", ICS'09), so the policy need not wait at the top for a baseline,
// and a periodic policy's cores off the critical path get no noise margin.
// Pure like the policies: plain data in, levels out, no locks and no clock.
// The live controller and joule-sim run the same code.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "energy_policy.hpp"

namespace joule::energy {

// The guard's knobs, fixed by its authors (exposed for tests and joule-sim).
struct GuardOptions {
  double budget = 0.01;         // Options::time_budget
  int baseline_units = 8;       // units at the top P-states that make a baseline
  int baseline_pool = 64;       // baseline units kept (probes add to it)
  int loss_units = 16;          // units the loss is measured over
  int probe_units = 20;         // one unit at the top every this many (0: none)
  int hold_units = 8;           // a trip holds the raised levels this long (first trip)
  int max_hold_units = 128;     // ... doubling on trips in a row, up to this
  int noise_units = 32;         // units the noise quantile is taken over
  double noise_quantile = 0.9;  // of (unit cost / median - 1)
  double phase_change = 0.2;    // critical work per iteration moved this much: new phase
  int phase_units = 5;          // ... judged on the median of this many units
  double max_margin = 0.5;      // frequency margin, fraction of the policy's frequency
  double trip_margin = 0.05;    // the margin a trip adds at least (then x1.5)
  double margin_decay = 0.002;  // per unit whose loss window is within half the budget
  bool slack = true;            // Options::guard_slack: trust a critical path at the top
};

enum class GuardAction { none, tripped, released, rebasing, baseline_taken };

struct GuardStats {
  std::uint64_t units = 0;          // units measured
  std::uint64_t trips = 0;          // times the loss exceeded the budget
  std::uint64_t rebases = 0;        // baselines taken (the first included)
  std::uint64_t probes = 0;         // single units at the top added to the baseline
  std::uint64_t phase_rebases = 0;  // ... because the work per iteration moved
  std::uint64_t held = 0;           // decisions whose levels the guard raised
  double baseline_s = 0;            // the baseline's cost per unit
  double loss = 0;                  // over the last loss_units units (fraction)
  double run_loss = 0;              // over every unit measured against a baseline
  double margin = 0;                // the frequency margin now
  double noise = 0;                 // the noise quantile now
  double max_margin = 0;            // the largest margin it used
};

class TimeGuard {
 public:
  explicit TimeGuard(const GuardOptions& opt = {}) : opt_(opt) {}
  // Forget everything (a new policy or mode): the next units make a baseline.
  void reset(bool periodic);
  // The decision to apply, from the policy's decision on `obs`: `obs` also
  // brings the unit that ran since the previous call.
  Decision filter(const Observation& obs, Decision d);
  const GuardStats& stats() const noexcept { return stats_; }
  // What the last filter() changed in the guard's state, for the trace.
  GuardAction last_action() const noexcept { return action_; }
  bool measuring_baseline() const noexcept { return baseline_ || probe_next_; }
  bool periodic() const noexcept { return periodic_; }
  // One line for reports: "time loss +0.4 % over the run, ... (budget 1.0 %); ...".
  std::string summary() const;

 private:
  struct Unit {
    double cost = 0;      // seconds per iteration, or seconds per second of work
    double critical = 0;  // iterative: the busiest core's work per iteration
    double late = -1;     // iterative: slowed cores' lateness / cost; -1: unknown
    bool at_top = false;  // it ran with every domain at its top P-state
    // slack: a domain ran at the top and every slowed one stayed off the
    // critical path (iterative: finished no later; periodic: ran no task
    // others wait on), so it cost what the top would.
    bool anchored = false;
  };
  // time_guard_slack.cpp: the slack-reclamation start and margin.
  bool anchored(const Observation& obs, const Unit& u) const;
  static bool on_critical_path(const Observation& obs, std::size_t domain);
  bool slack_start() const;
  void drop_anchored();
  void watch_start(const Unit& u);
  double margin_of(const Observation& obs, std::size_t domain, double margin) const;
  static double lateness(const Observation& obs, const std::vector<int>& levels);
  bool measure(const Observation& obs, Unit& u);
  void account(const Unit& u);
  void check_loss();
  bool phase_changed(const Unit& u);
  void take_baseline();
  void end_baseline_early();
  void add_probe(const Unit& u);
  // keep: add to the pool (a periodic re-take); else start a new one.
  void start_baseline(bool keep, bool phase = false);
  void trip();
  void ease_floors();
  bool holding() const {
    for (int f : floor_)
      if (f >= 0) return true;
    return false;
  }
  void update_noise();
  std::vector<int> guarded_levels(const Observation& obs) const;
  static int with_margin(const DomainView& d, int level, double margin);

  GuardOptions opt_;
  bool periodic_ = false;
  bool baseline_ = true;  // measuring a baseline now
  std::uint64_t last_iteration_ = 0;
  std::vector<int> policy_level_;  // what the policy last asked per domain
  std::vector<int> in_effect_;     // what the guard last let through
  std::vector<int> floor_;         // raised levels held by a trip (-1: none)
  std::vector<int> top_;           // each domain's top level
  std::deque<Unit> base_;          // the baseline pool
  int taking_ = 0;                 // units added to the pool in this re-take
  int baseline_calls_ = 0;         // calls since this baseline began
  std::deque<Unit> recent_;        // units since the last baseline, trip or release
  std::deque<double> spread_;      // recent costs, for the noise quantile
  std::deque<double> critical_;    // recent units' critical work (phase changes)
  double base_critical_ = 0;
  double learned_ = 0;  // margin added by trips, decaying
  int hold_left_ = 0, hold_ = 0, trips_in_row_ = 0, calm_units_ = 0, since_probe_ = 0;
  bool probe_next_ = false;  // the next unit runs at the top (a probe)
  bool probing_ = false;     // the unit being measured is a probe
  bool first_ = true;        // the next call's window is not a whole unit
  bool slack_lost_ = false;  // a slowed core was late or critical in this baseline
  double run_cost_ = 0, run_base_ = 0;
  GuardStats stats_;
  GuardAction action_ = GuardAction::none;
};

}  // namespace joule::energy
