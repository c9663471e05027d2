#include "splitter.hpp"

#include <algorithm>

namespace joule::energy {

double split_estimate(Objective obj, const std::vector<double>& w,
                      const std::vector<DeviceSample>& dev) {
  double t = 0, e = 0;
  std::vector<double> busy(w.size());
  for (std::size_t i = 0; i < w.size(); ++i) {
    busy[i] = dev[i].rate > 0 ? w[i] / dev[i].rate : (w[i] > 0 ? 1e30 : 0.0);
    t = std::max(t, busy[i]);
  }
  if (obj == Objective::time) return t;
  for (std::size_t i = 0; i < w.size(); ++i)
    e += dev[i].busy_watts * busy[i] + dev[i].idle_watts * (t - busy[i]);
  return obj == Objective::energy ? e : e * t;
}

Splitter::Splitter(int devices, Objective obj, const SplitterOptions& opt)
    : obj_(obj),
      opt_(opt),
      w_(std::size_t(std::max(devices, 1)), 1.0 / std::max(devices, 1)),
      delta_(opt.delta),
      p_restart_(opt.p0),
      rng_(opt.seed) {}

void Splitter::set_objective(Objective obj) {
  obj_ = obj;
  converged_ = false;
  delta_ = opt_.delta;
}

void Splitter::set_split(const std::vector<double>& w, bool converged) {
  if (w.size() != w_.size()) return;
  w_ = w;
  converged_ = converged;
  delta_ = converged ? opt_.delta_min : opt_.delta;
}

std::vector<double> converged_split(Objective obj, const std::vector<DeviceSample>& dev,
                                    const std::vector<double>& start, const SplitterOptions& opt) {
  SplitterOptions o = opt;
  o.p0 = 0;  // no restarts: stop where it converges
  Splitter s(int(start.size()), obj, o);
  s.set_split(start, false);
  // Each step moves at least delta_min or narrows delta: bounded by
  // 1/delta_min steps plus the halvings.
  for (int i = 0; i < 4096 && !s.converged(); ++i) s.next(dev);
  return s.split();
}

const std::vector<double>& Splitter::next(const std::vector<DeviceSample>& measured) {
  if (measured.size() != w_.size()) return w_;
  if (converged_) {
    // Algorithm 2: after convergence, restart with a growing probability.
    if (std::uniform_real_distribution<double>(0, 1)(rng_) >= p_restart_) {
      p_restart_ = std::min(1.0, p_restart_ + (opt_.p0 > 0 ? opt_.p_step : 0.0));
      return w_;
    }
    converged_ = false;
    delta_ = opt_.delta;
    p_restart_ = opt_.p0;
  }
  w_ = g(measured);
  return w_;
}

std::vector<double> Splitter::g(const std::vector<DeviceSample>& dev) {
  std::vector<double> best = w_;
  double best_x = split_estimate(obj_, w_, dev), best_step = 0;
  for (double s : {delta_, delta_ / 2, delta_ / 4}) {
    for (std::size_t a = 0; a < w_.size(); ++a) {
      for (std::size_t b = 0; b < w_.size(); ++b) {
        if (a == b) continue;
        auto cand = w_;
        const double moved = std::min(s, cand[b]);  // clip: w >= 0
        cand[a] += moved, cand[b] -= moved;
        const double x = split_estimate(obj_, cand, dev);
        if (x < best_x * (1 - 1e-12)) best = cand, best_x = x, best_step = s;
      }
    }
  }
  if (best_step < delta_) {  // the full step did not win: narrow
    if (best_step == 0 && delta_ <= opt_.delta_min) converged_ = true;
    delta_ = std::max(opt_.delta_min, delta_ / 2);
  }
  return best;
}

}  // namespace joule::energy
