// The time guard's slack reclamation (GuardOptions::slack, on by default;
// docs/energy.md, "The time guard"). Slowing a core that is off the
// critical path costs no time as long as it stays off it: Jitter slows only
// the nodes that wait at the iteration's barrier (Kappiah, Freeh and
// Lowenthal, "Just In Time Dynamic Voltage Scaling", SC'05), and Adagio only
// the tasks whose measured slack covers the slowdown, leaving the critical
// path at the top (Rountree et al., "Adagio", ICS'09). So:
//  - a unit in which some domain ran at the top and every slowed one kept
//    off the critical path (iterative: it finished no later than the cores
//    at the top, the paired lateness is 0; periodic: it ran no task others
//    wait on; its queued tasks do not count, since the side tasks of a slack
//    graph queue on it without holding anyone up) is worth a unit at the
//    top: it joins the baseline, and the policy's levels apply from its
//    first decision instead of after baseline_units units at the top
//    (while it keeps some domain at the top). A slowed core that
//    turns out late or critical during that start ends the trust: the rest
//    of the baseline is taken at the top, as without slack;
//  - a periodic policy's domain that ran no task others wait on and queued
//    nothing gets no noise margin (a delay there is absorbed by its slack;
//    the learned part, from trips, still applies). Iterative policies fill
//    the light core's slack, so their margin stays.
// The unpaired loss test and the probes at the top keep watching: a slowing
// that costs time somewhere this does not see still trips the guard, and
// once the probes have made a baseline of their own the trusted units leave
// the pool.
#include <algorithm>

#include "time_guard.hpp"

namespace joule::energy {

// A core of `domain` ran a task others wait on, or has ready tasks queued.
bool TimeGuard::on_critical_path(const Observation& obs, std::size_t domain) {
  for (int c : obs.domains[domain].cores) {
    const auto& core = obs.cores[std::size_t(c)];
    if (!core.parked && (core.running_critical || core.ready > 0)) return true;
  }
  return false;
}

bool TimeGuard::anchored(const Observation& obs, const Unit& u) const {
  if (!opt_.slack || u.at_top) return false;
  if (!periodic_) return u.late == 0;  // paired: the slowed cores finished no later
  bool top = false;
  for (std::size_t i = 0; i < obs.domains.size() && i < in_effect_.size(); ++i) {
    if (in_effect_[i] >= top_[i])
      top = true;
    else
      for (int c : obs.domains[i].cores)
        if (obs.cores[std::size_t(c)].running_critical) return false;
  }
  return top;
}

// The policy may lower from its first decision while it keeps a domain at
// the top (the critical path's), for as many calls as a baseline at the top
// would take, and until a slowed core turns out late or critical.
bool TimeGuard::slack_start() const {
  if (!opt_.slack || slack_lost_ || baseline_calls_ > opt_.baseline_units + 1) return false;
  for (std::size_t i = 0; i < policy_level_.size() && i < top_.size(); ++i)
    if (policy_level_[i] >= top_[i]) return true;
  return false;
}

// A unit of the start that is no baseline sample: a slowed core was late
// (iterative, past the budget) or on the critical path (periodic).
void TimeGuard::watch_start(const Unit& u) {
  if (u.at_top) return;
  if (periodic_ || u.late > opt_.budget) slack_lost_ = true;
}

// Once the probes have put baseline_units units at the top in the pool,
// the units trusted at the start leave it: should the slowing have cost time
// where the rule does not look (a core at the top waiting inside its unit
// for a slowed one), the unpaired loss sees it against the top alone.
void TimeGuard::drop_anchored() {
  int top = 0;
  for (const auto& u : base_) top += u.at_top;
  if (top < opt_.baseline_units) return;
  base_.erase(std::remove_if(base_.begin(), base_.end(), [](const Unit& u) { return u.anchored; }),
              base_.end());
}

double TimeGuard::margin_of(const Observation& obs, std::size_t domain, double margin) const {
  if (!opt_.slack || !periodic_ || on_critical_path(obs, domain)) return margin;
  return std::min(opt_.max_margin, learned_);
}

}  // namespace joule::energy
