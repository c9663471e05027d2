// The iterative work splitter (Cabrera et al., §4; docs/references.md): the
// share of an iteration's work each device gets (host cores, a many-core
// card...), for a swappable Objective. Start even (w_i = 1/p). After each
// iteration, from the measured rate s_i (work/s) and power of each device:
//   r_i = x_i / w_i, the resource per unit of work (Eq. 9), here from rates:
//   busy time of i under a candidate w':  t_i = w'_i / s_i
//   time     T(w')  = max_i t_i                       (a bulk-synchronous step)
//   energy   E(w')  = sum_i busy_i t_i + idle_i (T - t_i)  (Eq. 10 when idle = 0)
//   edp      E(w') * T(w')
// g (Algorithm 1): among D = {0} U {s (e_a - e_b) : s in delta, delta/2,
// delta/4} (pairwise transfers keep sum w = 1, clipped at w >= 0) take the
// candidate with the lowest estimate. delta halves whenever the full step
// does not win (a VNS-like narrowing; the paper gives no values) down to
// delta_min; once "stay" wins at delta_min the split is converged and g runs
// again only on a restart: with probability p_restart, which starts at p0
// and grows by p_step each iteration (Algorithm 2, with its polarity fixed).
// Work units: fractions of the iteration's work; the caller rounds them.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "energy_policy.hpp"

namespace joule::energy {

struct DeviceSample {
  double rate = 0;        // work units per second when busy
  double busy_watts = 0;  // power while computing
  double idle_watts = 0;  // power while waiting for the others
};

struct SplitterOptions {
  double delta = 0.1;  // initial largest transfer (fraction of the work)
  double delta_min = 0.005;
  double p0 = 0.0;  // restart probability after convergence (0: never)
  double p_step = 0.01;
  std::uint64_t seed = 1;
};

// The objective's estimate of a split (lower is better).
double split_estimate(Objective obj, const std::vector<double>& w,
                      const std::vector<DeviceSample>& dev);

// Where Algorithm 1 converges from `start` for fixed samples: the split the
// samples' rates and powers imply (a starting guess when a device's rate is
// only estimated, e.g. after a frequency change).
std::vector<double> converged_split(Objective obj, const std::vector<DeviceSample>& dev,
                                    const std::vector<double>& start,
                                    const SplitterOptions& opt = {});

class Splitter {
 public:
  Splitter(int devices, Objective obj, const SplitterOptions& opt = {});

  // The split for the next iteration, from this iteration's measurements.
  const std::vector<double>& next(const std::vector<DeviceSample>& measured);
  const std::vector<double>& split() const { return w_; }
  bool converged() const { return converged_; }
  // Swap the objective at run time: calibration starts again.
  void set_objective(Objective obj);
  // Put the split at w (a guess, or one measured before): calibration starts
  // again from the full step unless `converged`.
  void set_split(const std::vector<double>& w, bool converged);

 private:
  std::vector<double> g(const std::vector<DeviceSample>& dev);

  Objective obj_;
  SplitterOptions opt_;
  std::vector<double> w_;
  double delta_;
  bool converged_ = false;
  double p_restart_;
  std::mt19937_64 rng_;
};

}  // namespace joule::energy
