// A test-and-test-and-set spin lock for short critical sections (a few
// pointer updates). Cheaper than std::mutex when uncontended: lock() is one
// exchange. A waiter backs off (backoff.hpp): pauses that double, then
// sched_yield, so that a holder preempted while threads outnumber CPUs gets
// its CPU back instead of the waiters spinning through their time slices.
#pragma once

#include <atomic>

#include "backoff.hpp"

namespace joule::core {

class SpinLock {
 public:
  void lock() noexcept {
    if (!locked_.exchange(true, std::memory_order_acquire)) [[likely]]
      return;
    lock_contended();
  }
  bool try_lock() noexcept {
    return !locked_.load(std::memory_order_relaxed) &&
           !locked_.exchange(true, std::memory_order_acquire);
  }
  void unlock() noexcept { locked_.store(false, std::memory_order_release); }

 private:
  // Out of line so that lock() stays small enough to inline everywhere.
  [[gnu::noinline]] void lock_contended() noexcept {
    Backoff backoff;
    do {
      // Read-only while held: the line stays shared until the release.
      while (locked_.load(std::memory_order_relaxed)) backoff.pause();
    } while (locked_.exchange(true, std::memory_order_acquire));
  }

  std::atomic<bool> locked_{false};
};

}  // namespace joule::core
