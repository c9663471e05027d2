// cg-energylb: CG-EnergyLB (Padoin's thesis §4.1.2), per-chip DVFS. A chip's
// load is the sum of its active cores' loads (work-normalised by default).
// With a balancer and affinity keys, every call first balances keys inside
// each chip (moves only between cores of one chip: the leaf balancer that
// makes the sum a fair proxy for the chip's finish time). If the max/min chip
// ratio is >= threshold the balancer runs across all cores instead (the root
// balancer; frequencies per OnBalance); otherwise every domain of chip p goes
// to fmax * W[p] / Wmax, clamped and quantised. Balancer::none ("alone"):
// DVFS at every call and no moves.
#include <algorithm>

#include "energy_registry.hpp"
#include "energylb.hpp"

namespace joule::energy {
namespace {

class CgEnergyLb final : public EnergyPolicy {
 public:
  explicit CgEnergyLb(const Options& opt) : opt_(opt) {}
  const char* name() const override { return "cg-energylb"; }
  Trigger trigger() const override { return Trigger::iterations; }

  Decision decide(const Observation& obs) override {
    const auto cores = active_cores(obs);
    const auto w = core_loads(obs, opt_.load_norm);
    const auto chip_w = chip_loads(obs, w);
    std::vector<double> present;
    for (double x : chip_w)
      if (x >= 0) present.push_back(x);
    const double ratio = load_ratio(present), thr = effective_threshold(obs, opt_);
    const bool can_balance = opt_.balancer != Balancer::none && !obs.keys.empty();
    Decision d;
    if (ratio >= thr && can_balance) {
      d.kind = Decision::Kind::balance;
      d.moves = run_balancer(obs, opt_, cores);
      d.why = ratio_text(ratio, thr, "balance across chips");
      if (opt_.on_balance == OnBalance::reset_max) d.domain_level = top_levels(obs);
      if (opt_.on_balance == OnBalance::lb_then_dvfs)
        d.domain_level =
            levels(obs, chip_loads(obs, predicted_loads(obs, w, d.moves, opt_.load_norm)));
      return d;
    }
    if (can_balance) d.moves = intra_chip_moves(obs);
    d.domain_level = levels(obs, chip_w);
    if (d.domain_level.empty() && d.moves.empty()) return {};
    d.kind = d.domain_level.empty() ? Decision::Kind::balance : Decision::Kind::dvfs;
    d.why = ratio_text(ratio, thr, "dvfs per chip");
    return d;
  }

 private:
  static std::size_t chip_count(const Observation& obs) {
    std::size_t n = obs.chips.size();
    for (const auto& c : obs.cores) n = std::max(n, std::size_t(c.chip) + 1);
    return n;
  }

  // Per chip: the sum of its active cores' loads; -1 for a chip with none.
  static std::vector<double> chip_loads(const Observation& obs, const std::vector<double>& w) {
    std::vector<double> out(chip_count(obs), -1.0);
    for (std::size_t c = 0; c < obs.cores.size(); ++c) {
      if (obs.cores[c].parked) continue;
      auto& x = out[std::size_t(obs.cores[c].chip)];
      x = std::max(x, 0.0) + w[c];
    }
    return out;
  }

  std::vector<int> levels(const Observation& obs, const std::vector<double>& chip_w) const {
    if (chip_w.empty()) return {};
    const double wmax = *std::max_element(chip_w.begin(), chip_w.end());
    if (wmax <= 0) return {};
    std::vector<double> rel(obs.cores.size(), -1.0);
    for (std::size_t c = 0; c < obs.cores.size(); ++c)
      if (!obs.cores[c].parked) rel[c] = chip_w[std::size_t(obs.cores[c].chip)] / wmax;
    return dvfs_levels(obs, rel, opt_.quantise);
  }

  Moves intra_chip_moves(const Observation& obs) const {
    std::vector<std::vector<int>> by_chip(chip_count(obs));
    for (int c : active_cores(obs))
      by_chip[std::size_t(obs.cores[std::size_t(c)].chip)].push_back(c);
    Moves out;
    for (auto& chip_cores : by_chip) {
      if (chip_cores.size() < 2) continue;
      auto m = run_balancer(obs, opt_, std::move(chip_cores));
      out.insert(out.end(), m.begin(), m.end());
    }
    return out;
  }

  Options opt_;
};

}  // namespace

std::unique_ptr<EnergyPolicy> make_cg_energylb(const Options& opt) {
  return std::make_unique<CgEnergyLb>(opt);
}

}  // namespace joule::energy
