// queue-depth: per-core DVFS for dynamic graphs with no iterations, decided
// every Options::window_s from what each core did over the window. The rule,
// per core (a shared domain follows its most demanding core):
//   1. running_critical (its running task has waiting successors): fmax.
//   2. ready tasks queued while every other active core is busy: fmax (the
//      queue is the bottleneck; nobody idle can take the work).
//   3. ready tasks while some core is idle: keep the level (thieves drain it).
//   4. otherwise its work has slack: the lowest P-state f at which its work of
//      the window (work_s, seconds at fmax) still fits in the window with
//      headroom, work_s * fmax / f <= window_s * (1 - time_budget). An idle
//      core goes to fmin. This is where residual imbalance turns into savings.
// Raising is immediate; lowering needs Options::down_windows consecutive
// windows that ask for lower, and goes to the highest of their asks (no
// flip-flop on alternating windows). No change at all unless the window a
// setting lasts exceeds Options::switch_payback x the measured switch cost.
// Rules 1 and 2 never slow a core; tests prove it on random observations.
#include <algorithm>

#include "energy_registry.hpp"

namespace joule::energy {
namespace {

class QueueDepth final : public EnergyPolicy {
 public:
  explicit QueueDepth(const Options& opt) : opt_(opt) {}
  const char* name() const override { return "queue-depth"; }
  Trigger trigger() const override { return Trigger::periodic; }

  Decision decide(const Observation& obs) override {
    const double window = obs.window_s > 0 ? obs.window_s : opt_.window_s;
    const bool may_switch = window > opt_.switch_payback * obs.switch_cost_s;
    streak_.resize(obs.domains.size(), 0);
    ask_.resize(obs.domains.size(), 0);
    // Cores that are neither parked nor running, counted once: rule 2 asks
    // whether any core other than c is free, O(1) per core (O(workers) per
    // decision instead of a scan of every core per core).
    free_ = 0;
    for (const auto& c : obs.cores) free_ += !c.parked && !c.running;
    Decision d;
    bool changed = false;
    for (std::size_t i = 0; i < obs.domains.size(); ++i) {
      const auto& dom = obs.domains[i];
      int want = -1;
      for (int c : dom.cores) want = std::max(want, core_level(obs, std::size_t(c), window));
      int level = dom.level;
      if (want < 0 || want == dom.level) {
        streak_[i] = 0;
      } else if (want > dom.level) {
        streak_[i] = 0;
        if (may_switch) level = want;
      } else {
        ask_[i] = streak_[i] == 0 ? want : std::max(ask_[i], want);
        if (++streak_[i] >= opt_.down_windows && may_switch) level = ask_[i], streak_[i] = 0;
      }
      changed |= level != dom.level;
      d.domain_level.push_back(level);
    }
    if (!changed) return {};
    d.kind = Decision::Kind::dvfs;
    d.why = "queue depth and slack over the window";
    return d;
  }

 private:
  // The level core c asks for; -1: no opinion (parked).
  int core_level(const Observation& obs, std::size_t c, double window) const {
    const auto& core = obs.cores[c];
    const auto& dom = obs.domains[std::size_t(core.domain)];
    const int top = int(dom.pstates.size()) - 1;
    if (core.parked || top < 0) return -1;
    if (core.running_critical) return top;
    if (core.ready > 0) return others_busy(obs, c) ? top : dom.level;
    const double room = window * (1 - opt_.time_budget);
    for (int l = 0; l < top; ++l)
      if (core.work_s * dom.fmax() <= room * dom.pstates[std::size_t(l)]) return l;
    return top;
  }

  bool others_busy(const Observation& obs, std::size_t c) const {
    const bool self_free = !obs.cores[c].parked && !obs.cores[c].running;
    return free_ - int(self_free) == 0;
  }

  Options opt_;
  int free_ = 0;             // cores neither parked nor running, in this observation
  std::vector<int> streak_;  // per domain: consecutive windows asking for lower
  std::vector<int> ask_;     // per domain: the highest of those asks
};

}  // namespace

std::unique_ptr<EnergyPolicy> make_queue_depth(const Options& opt) {
  return std::make_unique<QueueDepth>(opt);
}

}  // namespace joule::energy
