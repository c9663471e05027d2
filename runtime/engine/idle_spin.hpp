// The spin a thread does before it sleeps, shared by the dispatch loop and
// taskwait. Polling with PAUSE assumes the thread that will produce work is
// running; with more runnable threads than CPUs (Runtime::oversubscribed) it
// may be waiting for this very CPU, so the poll yields between looks and
// gives up after a few: sleeping then costs less than holding the CPU
// (libgomp likewise cuts its spin when threads outnumber CPUs,
// GOMP_SPINCOUNT in the libgomp manual).
//
// A yield pays only while the threads it lets run are ours and brief. When
// another program shares the CPUs, sched_yield hands it the CPU for a whole
// time slice (about a millisecond under EEVDF, sched-eevdf in the kernel
// docs), and each further yield costs another: parallel regions with 4
// threads on 2 CPUs beside a compiler took ten times longer with the yields
// than with none (docs/performance.md, "Beside other programs"). So a yield
// that comes back late stops the yields, process-wide, for a window that
// doubles while they keep coming back late; meanwhile the polls sleep at
// once and are woken by the futex, which the kernel serves promptly.
#pragma once

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>

#include "backoff.hpp"

namespace joule::engine {

inline constexpr int kOversubscribedPolls = 8;

class YieldGauge {
 public:
  static constexpr std::int64_t kLateNs = 300'000;  // longer than a yield among our threads
  static constexpr std::int64_t kFirstWindowNs = 10'000'000;
  static constexpr std::int64_t kLongestWindowNs = 1'000'000'000;

  bool pays(std::int64_t now_ns) const noexcept {
    return now_ns >= quiet_until_.load(std::memory_order_relaxed);
  }
  // One yield that began at `start_ns` and came back at `now_ns`.
  void took(std::int64_t start_ns, std::int64_t now_ns) noexcept {
    if (now_ns - start_ns < kLateNs) {
      window_.store(kFirstWindowNs, std::memory_order_relaxed);
      return;
    }
    const std::int64_t w = window_.load(std::memory_order_relaxed);
    quiet_until_.store(now_ns + w, std::memory_order_relaxed);
    window_.store(std::min(2 * w, kLongestWindowNs), std::memory_order_relaxed);
  }

 private:
  std::atomic<std::int64_t> quiet_until_{0};  // no yields before (steady clock, ns)
  std::atomic<std::int64_t> window_{kFirstWindowNs};
};

// One per process: other programs share the machine, not one runtime.
inline YieldGauge& yield_gauge() noexcept {
  static YieldGauge g;
  return g;
}

inline std::int64_t steady_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// One sched_yield, timed, if yields pay now; false, without yielding, while
// they come back late (the caller sleeps instead).
inline bool yield_if_it_pays() noexcept {
  YieldGauge& gauge = yield_gauge();
  const std::int64_t start = steady_ns();
  if (!gauge.pays(start)) return false;
  sched_yield();
  gauge.took(start, steady_ns());
  return true;
}

// True as soon as progress() holds; false at the deadline (or after the
// yielding polls when oversubscribed, or at once while yields come back late).
template <class Progress>
bool spin_until(Progress progress, std::chrono::steady_clock::time_point deadline,
                bool oversubscribed) {
  if (oversubscribed) {
    for (int i = 0; i < kOversubscribedPolls; ++i) {
      if (progress()) return true;
      if (!yield_if_it_pays()) break;
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
