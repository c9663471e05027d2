// workload.kind = split: Cabrera et al.'s setting. Every iteration splits the work
// over heterogeneous devices (bulk-synchronous: the iteration lasts the
// slowest device; the others wait at idle power), with one of three methods:
//   even          1/p each (the paper's Ref)
//   proportional  even at the first iteration, then shares proportional to
//                 the measured rates (Calib: balances time)
//   splitter      scheduler/energy's Splitter (EnerH) with split.objective,
//                 fed each iteration's measured rates and powers
// The dynamic methods pay split.lb_s per iteration with every device idle
// (measuring and deciding), which is what makes the even split win on small
// iterations (C3-1's crossover). With split.rates_end the device rates drift
// linearly from split.rates to it over the run (a moving optimum, as CSP's
// diagonal traversal); the methods measure the current rates, and a
// converged splitter follows only when it restarts (split.p0 > 0,
// Algorithm 2's restart probability).
#include <algorithm>

#include "engine.hpp"
#include "splitter.hpp"

namespace joule::sim {
namespace {

struct Iteration {
  double time_s = 0, energy_j = 0;
};

Iteration run_once(const SplitSpec& sp, const std::vector<double>& rates,
                   const std::vector<double>& w) {
  Iteration it;
  std::vector<double> busy(w.size());
  for (std::size_t i = 0; i < w.size(); ++i) {
    busy[i] = w[i] * sp.work / rates[i];
    it.time_s = std::max(it.time_s, busy[i]);
  }
  for (std::size_t i = 0; i < w.size(); ++i)
    it.energy_j += sp.busy_w[i] * busy[i] + sp.idle_w[i] * (it.time_s - busy[i]);
  return it;
}

std::vector<double> proportional(const std::vector<double>& rates) {
  double sum = 0;
  for (double r : rates) sum += r;
  std::vector<double> w;
  for (double r : rates) w.push_back(r / sum);
  return w;
}

// The device rates at `step` of `steps`: fixed, or on the line to rates_end.
std::vector<double> rates_at(const SplitSpec& sp, int step, int steps) {
  if (sp.rates_end.empty() || steps < 2) return sp.rates;
  const double x = double(step - 1) / double(steps - 1);
  std::vector<double> r;
  for (std::size_t i = 0; i < sp.rates.size(); ++i)
    r.push_back(sp.rates[i] + (sp.rates_end[i] - sp.rates[i]) * x);
  return r;
}

energy::Splitter make_splitter(const Scenario& s) {
  energy::SplitterOptions o;
  o.p0 = s.split.p0;
  o.p_step = s.split.p_step;
  o.seed = s.workload.seed;
  return energy::Splitter(int(s.split.rates.size()), s.split.objective, o);
}

}  // namespace

std::string objective_name(energy::Objective o) {
  return o == energy::Objective::time ? "time" : o == energy::Objective::edp ? "edp" : "energy";
}

RunResult run_split(const Scenario& s, bool record_steps) {
  const SplitSpec& sp = s.split;
  const std::size_t p = sp.rates.size();
  energy::Splitter splitter = make_splitter(s);
  std::vector<double> w(p, 1.0 / double(p));
  const bool dynamic = sp.method != "even";
  double idle_sum = 0;
  for (double x : sp.idle_w) idle_sum += x;
  RunResult r;
  r.policy = sp.method;
  if (sp.method == "splitter") r.policy.append("-").append(objective_name(sp.objective));
  for (int step = 1; step <= s.workload.steps; ++step) {
    const auto rates = rates_at(sp, step, s.workload.steps);
    const Iteration it = run_once(sp, rates, w);
    r.time_s += it.time_s, r.energy_j += it.energy_j;
    r.split = w;
    if (dynamic) r.time_s += sp.lb_s, r.energy_j += sp.lb_s * idle_sum;
    if (record_steps)
      r.steps.push_back({step, r.time_s, it.time_s > 0 ? it.energy_j / it.time_s : 0, 0, 0, 'b'});
    if (sp.method == "proportional") w = proportional(rates);
    if (sp.method == "splitter") {
      std::vector<energy::DeviceSample> measured;
      for (std::size_t i = 0; i < p; ++i)
        measured.push_back({rates[i], sp.busy_w[i], sp.idle_w[i]});
      const bool was = splitter.converged();
      w = splitter.next(measured);
      if (splitter.converged() && r.converged_at == 0) r.converged_at = step;
      r.restarts += was && !splitter.converged();
    }
  }
  r.avg_power_w = r.time_s > 0 ? r.energy_j / r.time_s : 0;
  return r;
}

}  // namespace joule::sim
