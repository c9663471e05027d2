// The spin a thread does before it sleeps, shared by the dispatch loop and
// taskwait. Polling with PAUSE assumes the thread that will produce work is
// running; with more runnable threads than CPUs (Runtime::oversubscribed) it
// may be waiting for this very CPU, so the poll yields between looks and
// gives up after a few: sleeping then costs less than holding the CPU
// (libgomp likewise cuts its spin when threads outnumber CPUs,
// GOMP_SPINCOUNT in the libgomp manual).
#pragma once

#include <sched.h>

#include <chrono>

#include "backoff.hpp"

namespace joule::engine {

inline constexpr int kOversubscribedPolls = 8;

// True as soon as progress() holds; false at the deadline (or after the
// yielding polls when oversubscribed).
template <class Progress>
bool spin_until(Progress progress, std::chrono::steady_clock::time_point deadline,
                bool oversubscribed) {
  if (oversubscribed) {
    for (int i = 0; i < kOversubscribedPolls; ++i) {
      if (progress()) return true;
      sched_yield();
    }
    return progress();
  }
  // One look, then rounds of 64 until the deadline: a zero spin looks once.
  if (progress()) return true;
  while (std::chrono::steady_clock::now() < deadline) {
    for (int i = 0; i < 64; ++i) {
      core::cpu_relax();
      if (progress()) return true;
    }
  }
  return false;
}

}  // namespace joule::engine
