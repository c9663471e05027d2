// templb: Sarood & Kale's temperature-aware refine LB ("Cool", Algorithm 1), per
// chip, every Options::period iterations:
//   1. DVFS, one level per call: a chip hotter than T_max steps every one of
//      its domains down one P-state; one cooler than T_max - t_band_c steps
//      up one; in between it holds (the band stops the dithering the paper
//      reports). Unknown temperature or T_max = 0: levels stay.
//   2. Refine in ticks (time x frequency; work_s is ticks / fmax): core i's
//      share is totalTicks * f_i / sum f, f the NEW frequencies; a core above
//      (1 + tolerance) x its share gives its largest key that fits under the
//      share of a core below its share, until no overloaded core can give.
#include <algorithm>
#include <cmath>

#include "energy_registry.hpp"
#include "energylb.hpp"
#include "remap.hpp"

namespace joule::energy {
namespace {

class TempLb final : public EnergyPolicy {
 public:
  explicit TempLb(const Options& opt) : opt_(opt) {}
  const char* name() const override { return "templb"; }
  Trigger trigger() const override { return Trigger::iterations; }
  // Its levels keep chips below T_max: the time guard must not raise them.
  bool guardable() const override { return false; }

  Decision decide(const Observation& obs) override {
    Decision d;
    d.domain_level = step_levels(obs);
    bool stepped = false;
    for (std::size_t i = 0; i < obs.domains.size(); ++i)
      stepped |= d.domain_level[i] != obs.domains[i].level;
    RemapProblem p{active_cores(obs), base_loads(obs), std::vector<double>(obs.cores.size(), 0)};
    for (int c : p.cores) {
      const auto dom = std::size_t(obs.cores[std::size_t(c)].domain);
      const auto& pstates = obs.domains[dom].pstates;
      if (!pstates.empty()) p.capacity[std::size_t(c)] = pstates[std::size_t(d.domain_level[dom])];
    }
    d.moves = refine_remap(obs.keys, p, opt_.tolerance);
    if (!stepped && d.moves.empty()) return {};
    d.kind = d.moves.empty() ? Decision::Kind::dvfs : Decision::Kind::balance;
    d.why = stepped ? "chip temperature against T_max; refine in ticks" : "refine in ticks";
    return d;
  }

 private:
  std::vector<int> step_levels(const Observation& obs) const {
    std::vector<int> out;
    for (const auto& dom : obs.domains) {
      int level = dom.level;
      const double t = std::size_t(dom.chip) < obs.chips.size()
                           ? obs.chips[std::size_t(dom.chip)].temperature_c
                           : NAN;
      if (opt_.t_max_c > 0 && !std::isnan(t) && !dom.pstates.empty()) {
        if (t > opt_.t_max_c) level = std::max(0, level - 1);
        if (t < opt_.t_max_c - opt_.t_band_c)
          level = std::min(int(dom.pstates.size()) - 1, level + 1);
      }
      out.push_back(level);
    }
    return out;
  }

  Options opt_;
};

}  // namespace

std::unique_ptr<EnergyPolicy> make_templb(const Options& opt) {
  return std::make_unique<TempLb>(opt);
}

}  // namespace joule::energy
