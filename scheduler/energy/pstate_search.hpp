// Choosing a device's P-state by measurement, for the work splitter: one
// level per decision (as Sarood & Kale's "Cool" LB) and judged on the measured
// objective of the iterations, not on a model (as Cabrera et al.: measure,
// don't assume). Once the
// split has converged at the current level, the search measures a few
// iterations there (the base), then a few at the neighbouring level (the
// trial); it keeps the neighbour when its objective beats the base by
// min_gain and goes on in that direction, otherwise it goes back and stops
// until restart() (the workload changed). The caller may reject a trial
// its model expects to lose (the time objective never gains from a slower
// card), so noise cannot pick it. Levels index the device's
// P-states, highest frequency first; the search goes down first, and up
// from where it started when the first step down loses.
#pragma once

namespace joule::energy {

struct PStateSearchOptions {
  int samples = 3;         // iterations measured per level; the least counts (load only adds)
  double min_gain = 0.02;  // a neighbour must beat the kept level by this share
  // Iterations a level waits for the split to converge: with noisy rates
  // the splitter may keep stepping by delta_min, and the search must not
  // wait on it for ever.
  int settle_max = 12;
};

class PStateSearch {
 public:
  // What next() did to the level.
  enum class Move {
    none,   // stay at level()
    trial,  // level() is a neighbour now, on trial
    keep,   // the trial won: level() stays, and the split settles there
    back,   // the trial lost: level() is the kept one again
  };

  PStateSearch(int levels, int start, const PStateSearchOptions& opt = {});

  // After an iteration run at level(): its measured objective (lower is
  // better) and whether the split has converged at this level.
  Move next(double objective, bool split_converged);
  // The trial next() just started is not worth measuring (the caller's
  // model predicts no gain there): treat it as lost.
  Move reject_trial();
  int level() const { return level_; }
  bool settled() const { return phase_ == Phase::stopped; }
  // The workload changed: search again from the level it stopped at.
  void restart();

 private:
  enum class Phase { settle, base, trial, stopped };
  bool start_trial();
  Move judge_trial();

  int levels_, level_, kept_;
  PStateSearchOptions opt_;
  Phase phase_ = Phase::settle;
  int dir_ = 1;  // +1: towards lower frequencies
  bool moved_ = false, turned_ = false;
  int count_ = 0, settling_ = 0;
  double base_ = 0, trial_ = 0;
};

}  // namespace joule::energy
