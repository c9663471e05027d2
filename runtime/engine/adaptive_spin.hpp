// How long an idle worker spins before it sleeps. The floor is
// JOULE_SPIN_US. When recent idle periods ended with new work within
// JOULE_SPIN_MAX_US, the spin stretches to cover them: in a bulk-synchronous
// loop the light worker idles a little at every iteration's end, and if it
// sleeps, the next iteration's first push pays a futex wake and the sleeper
// starts tens of microseconds late, every iteration. A gap longer than the
// cap resets the spin to the floor: then sleeping costs less than spinning.
// Spinning counts as busy for the power model; it is not free.
#pragma once

#include <algorithm>
#include <chrono>

namespace joule::engine {

class AdaptiveSpin {
 public:
  using ns = std::chrono::nanoseconds;

  AdaptiveSpin(int floor_us, int cap_us)
      : floor_(std::chrono::microseconds(floor_us)),
        cap_(std::max(floor_, ns(std::chrono::microseconds(cap_us)))),
        spin_(floor_) {}

  ns budget() const noexcept { return spin_; }

  // An idle period of `idle` ended; `work` says whether work ended it (not
  // a stop or a rest). Half as much again as the last gap covers jitter.
  void learn(ns idle, bool work) noexcept {
    if (!work) return;
    spin_ = idle <= cap_ ? std::clamp(idle + idle / 2, floor_, cap_) : floor_;
  }

 private:
  ns floor_;
  ns cap_;
  ns spin_;
};

}  // namespace joule::engine
