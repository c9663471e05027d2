#include "pstate_search.hpp"

#include <algorithm>
#include <limits>

namespace joule::energy {

PStateSearch::PStateSearch(int levels, int start, const PStateSearchOptions& opt)
    : levels_(std::max(levels, 1)),
      level_(std::clamp(start, 0, std::max(levels, 1) - 1)),
      kept_(level_),
      opt_(opt) {
  opt_.samples = std::max(opt_.samples, 1);
  if (levels_ < 2) phase_ = Phase::stopped;  // nothing to choose
}

void PStateSearch::restart() {
  if (phase_ != Phase::stopped || levels_ < 2) return;
  phase_ = Phase::settle;
  dir_ = 1;
  moved_ = turned_ = false;
}

PStateSearch::Move PStateSearch::next(double objective, bool split_converged) {
  switch (phase_) {
    case Phase::stopped:
      return Move::none;
    case Phase::settle:
      if (!split_converged && ++settling_ < opt_.settle_max) return Move::none;
      // This iteration ran at the converged split: the first base sample.
      phase_ = Phase::base;
      count_ = settling_ = 0;
      base_ = std::numeric_limits<double>::infinity();
      [[fallthrough]];
    case Phase::base:
      base_ = std::min(base_, objective);
      if (++count_ < opt_.samples) return Move::none;
      if (start_trial()) return Move::trial;
      phase_ = Phase::stopped;
      return Move::none;
    case Phase::trial:
      trial_ = std::min(trial_, objective);
      if (++count_ < opt_.samples) return Move::none;
      return judge_trial();
  }
  return Move::none;
}

// The next untried neighbour: down first; up only when no step has been
// kept yet (from a kept level, the way back up is known to be worse).
bool PStateSearch::start_trial() {
  int to = kept_ + dir_;
  if ((to < 0 || to >= levels_) && !moved_ && !turned_) {
    dir_ = -dir_, turned_ = true;
    to = kept_ + dir_;
  }
  if (to < 0 || to >= levels_) return false;
  level_ = to;
  phase_ = Phase::trial;
  count_ = 0;
  trial_ = std::numeric_limits<double>::infinity();
  return true;
}

PStateSearch::Move PStateSearch::reject_trial() {
  if (phase_ != Phase::trial) return Move::none;
  trial_ = std::numeric_limits<double>::infinity();
  return judge_trial();
}

PStateSearch::Move PStateSearch::judge_trial() {
  if (trial_ < base_ * (1 - opt_.min_gain)) {
    kept_ = level_;
    moved_ = true;
    phase_ = Phase::settle;  // settle the split here, then try the next level
    return Move::keep;
  }
  level_ = kept_;
  const int other = kept_ - dir_;
  if (!moved_ && !turned_ && other >= 0 && other < levels_) {  // the other way may still win
    dir_ = -dir_, turned_ = true;
    phase_ = Phase::settle;
  } else {
    phase_ = Phase::stopped;
  }
  return Move::back;
}

}  // namespace joule::energy
