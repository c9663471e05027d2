// fg-energylb: FG-EnergyLB (Padoin's thesis §4.1.1), per-core DVFS. Every
// Options::period iterations: W[c] = the core's load (work-normalised by
// default); if max/min >= threshold and a balancer is set and there are
// affinity keys, remap keys (frequencies per OnBalance); otherwise set each
// core to fmax * W[c] / Wmax, clamped and quantised. With Balancer::none
// ("alone") it is DVFS at every call. Without keys a balancer has nothing to
// move, so it is DVFS too.
#include <algorithm>

#include "energy_registry.hpp"
#include "energylb.hpp"

namespace joule::energy {
namespace {

class FgEnergyLb final : public EnergyPolicy {
 public:
  explicit FgEnergyLb(const Options& opt) : opt_(opt) {}
  const char* name() const override { return "fg-energylb"; }
  Trigger trigger() const override { return Trigger::iterations; }

  Decision decide(const Observation& obs) override {
    const auto cores = active_cores(obs);
    const auto w = core_loads(obs, opt_.load_norm);
    std::vector<double> active;
    for (int c : cores) active.push_back(w[std::size_t(c)]);
    const double ratio = load_ratio(active), thr = effective_threshold(obs, opt_);
    Decision d;
    if (ratio >= thr && opt_.balancer != Balancer::none && !obs.keys.empty()) {
      d.kind = Decision::Kind::balance;
      d.moves = run_balancer(obs, opt_, cores);
      d.why = ratio_text(ratio, thr, "balance");
      if (opt_.on_balance == OnBalance::reset_max) d.domain_level = top_levels(obs);
      if (opt_.on_balance == OnBalance::lb_then_dvfs)
        d.domain_level = levels(obs, predicted_loads(obs, w, d.moves, opt_.load_norm));
      return d;
    }
    d.domain_level = levels(obs, w);
    if (d.domain_level.empty()) return {};  // nothing ran: nothing to scale by
    d.kind = Decision::Kind::dvfs;
    d.why = ratio_text(ratio, thr, "dvfs");
    return d;
  }

 private:
  // Relative loads of the active cores against the most loaded one.
  std::vector<int> levels(const Observation& obs, const std::vector<double>& w) const {
    double wmax = 0;
    for (std::size_t c = 0; c < w.size(); ++c)
      if (!obs.cores[c].parked) wmax = std::max(wmax, w[c]);
    if (wmax <= 0) return {};
    std::vector<double> rel(w.size(), -1.0);
    for (std::size_t c = 0; c < w.size(); ++c)
      if (!obs.cores[c].parked) rel[c] = w[c] / wmax;
    return dvfs_levels(obs, rel, opt_.quantise);
  }

  Options opt_;
};

}  // namespace

std::unique_ptr<EnergyPolicy> make_fg_energylb(const Options& opt) {
  return std::make_unique<FgEnergyLb>(opt);
}

}  // namespace joule::energy
