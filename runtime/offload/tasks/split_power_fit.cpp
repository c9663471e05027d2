// The busy/idle power fit of split_power_fit.hpp: a 2x2 least-squares
// solve, falling back to the busy power alone when it is ill-conditioned.
#include "split_power_fit.hpp"

#include <algorithm>
#include <cmath>

namespace joule::card_tasks {
namespace {

// Below this, det / (bb * ii) says the samples' busy/idle ratios barely
// differ: the two powers cannot be separated.
constexpr double kMinSpread = 1e-3;

}  // namespace

void PowerFit::add(double busy_s, double idle_s, double joules) {
  if (!(busy_s > 0) || !(joules >= 0) || !(idle_s >= 0)) return;
  const double f = forget_;
  bb_ = f * bb_ + busy_s * busy_s;
  bi_ = f * bi_ + busy_s * idle_s;
  ii_ = f * ii_ + idle_s * idle_s;
  be_ = f * be_ + busy_s * joules;
  ie_ = f * ie_ + idle_s * joules;
  ++samples_;
  const double det = bb_ * ii_ - bi_ * bi_;
  if (ii_ > 0 && det > kMinSpread * bb_ * ii_) {
    const double busy = (be_ * ii_ - ie_ * bi_) / det;
    const double idle = (ie_ * bb_ - be_ * bi_) / det;
    if (busy >= 0 && idle >= 0) {
      now_ = {busy, idle};
      return;
    }
  }
  // Only the busy power: the idle part of each sample at the kept idle power.
  now_.busy_watts = std::max(0.0, (be_ - now_.idle_watts * bi_) / bb_);
}

void PowerFit::reset(FittedPower prior) {
  now_ = prior;
  samples_ = 0;
  bb_ = bi_ = ii_ = be_ = ie_ = 0;
}

}  // namespace joule::card_tasks
