// Waiting for a value that another thread will change: a few rounds of
// pause instructions, doubling each round, then sched_yield(2) on every
// further wait.
//
// Spinning alone assumes that the thread we wait for is running. When
// runnable threads outnumber CPUs (JOULE_WORKERS above the CPUs, a cgroup
// CPU quota, other programs) it may have been preempted, and each pause we
// spend keeps it off its CPU until our time slice ends (milliseconds under
// CFS: docs.kernel.org/scheduler/sched-design-CFS.html). Yielding lets it
// run. sched_yield(2) says that yielding under SCHED_OTHER is unspecified;
// on Linux it puts the caller behind the other runnable threads of its CPU,
// which is what a preempted lock holder needs, and costs one system call
// when there is none.
#pragma once

#include <sched.h>

namespace joule::core {

// One PAUSE (x86) or YIELD (AArch64): tells the core that this is a spin
// loop, so it slows the loop down and gives a sibling hyper-thread the
// pipeline. PAUSE takes about 140 cycles since Skylake, about 10 before
// (Intel 64 and IA-32 Architectures Optimization Reference Manual, "Pause
// latency in Skylake microarchitecture").
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

class Backoff {
 public:
  // 1 + 2 + ... + 64 = 127 pauses, about 0.5 to 6 microseconds, before the
  // first yield: longer than the critical sections joule's spin locks
  // guard, so a running holder is never yielded to.
  static constexpr int kSpinRounds = 7;

  // `spin_rounds` rounds of pauses, then yields; 0 yields at the first wait
  // (a caller that knows the CPUs are oversubscribed).
  explicit Backoff(int spin_rounds = kSpinRounds) noexcept : rounds_left_(spin_rounds) {}

  // One wait; true when it yielded the CPU rather than paused.
  bool pause() noexcept {
    if (rounds_left_ <= 0) {
      sched_yield();
      return true;
    }
    for (int i = 0; i < pauses_; ++i) cpu_relax();
    pauses_ *= 2;
    --rounds_left_;
    return false;
  }

  // True once every further pause() yields.
  bool yielding() const noexcept { return rounds_left_ <= 0; }

 private:
  int rounds_left_;
  int pauses_ = 1;
};

}  // namespace joule::core
