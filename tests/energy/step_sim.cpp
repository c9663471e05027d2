#include "step_sim.hpp"

#include <algorithm>

namespace joule::energy::test {
namespace {

Observation make_observation(const StepSimSetup& s, const std::vector<int>& level) {
  Observation obs;
  for (std::size_t i = 0; i < s.work.size(); ++i) {
    CoreView c;
    c.domain = c.chip = int(i);
    obs.cores.push_back(c);
    DomainView d;
    d.cores = {int(i)};
    d.pstates = s.pstates;
    d.level = level[i];
    d.chip = int(i);
    for (auto khz : s.pstates) d.busy_watts.push_back(s.watts(khz / 1e6));
    obs.domains.push_back(d);
    obs.chips.emplace_back();
  }
  return obs;
}

}  // namespace

StepSimResult run_step_sim(const std::string& policy, const Options& opt, const StepSimSetup& s) {
  auto p = make_energy_policy(policy, opt);
  const std::size_t n = s.work.size();
  const double fmax = s.pstates.back() / 1e6;
  std::vector<int> level(n, int(s.pstates.size()) - 1);
  Observation obs = make_observation(s, level);
  StepSimResult r;
  for (int step = 1; step <= s.steps; ++step) {
    std::vector<double> busy(n);
    double t = 0;
    for (std::size_t i = 0; i < n; ++i) {
      busy[i] = s.work[i] * fmax / (s.pstates[std::size_t(level[i])] / 1e6);
      t = std::max(t, busy[i]);
    }
    for (std::size_t i = 0; i < n; ++i) {
      r.energy_j += s.watts(s.pstates[std::size_t(level[i])] / 1e6) * t;
      obs.cores[i].busy_s += busy[i];
      obs.cores[i].idle_s += t - busy[i];
      obs.cores[i].work_s += s.work[i];
    }
    r.time_s += t;
    obs.window_s += t;
    if (step % s.period != 0) continue;
    obs.iteration = std::uint64_t(step);
    const Decision d = p->decide(obs);
    if (!d.domain_level.empty()) level = d.domain_level;
    r.levels.push_back(level);
    r.kinds.push_back(d.kind);
    obs = make_observation(s, level);  // a new window
  }
  return r;
}

std::vector<std::uint32_t> seed_pstates() {
  std::vector<std::uint32_t> khz;
  for (std::uint32_t f = 1200000; f <= 2400000; f += 100000) khz.push_back(f);
  return khz;
}

double seed_linear_watts(double ghz) { return 4.5 + 13.25 * ghz; }
double seed_cubic_watts(double ghz) { return 18.13 + 1.3145 * ghz * ghz * ghz; }

}  // namespace joule::energy::test
