// Sleeping and waking idle threads. A sleeper registers, re-checks its
// condition, then waits on a futex word; a producer that made work available
// bumps the word and wakes only when someone is registered, so the common
// path (nobody asleep) costs one load.
#pragma once

#include <atomic>
#include <cstdint>

namespace joule::engine {

class Idle {
 public:
  // Sleeps until woken, unless wake_condition() already holds. May return
  // spuriously; callers loop.
  template <class Cond>
  void sleep_unless(Cond wake_condition) {
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    const std::uint32_t seen = epoch_.load(std::memory_order_seq_cst);
    if (!wake_condition()) wait(seen);
    sleepers_.fetch_sub(1, std::memory_order_relaxed);
  }

  // Wakes up to n sleepers. The caller published its work with a seq_cst
  // read-modify-write (e.g. the ready queue's count), which orders it against
  // a sleeper's registration without an extra fence.
  void wake_after_publish(int n) noexcept {
    if (sleepers_.load(std::memory_order_seq_cst) > 0) signal(n);
  }
  void wake_all() noexcept {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) > 0) signal(1 << 30);
  }

  int sleepers() const noexcept { return sleepers_.load(std::memory_order_relaxed); }

 private:
  void wait(std::uint32_t seen) noexcept;
  void signal(int n) noexcept;

  alignas(64) std::atomic<std::uint32_t> epoch_{0};
  alignas(64) std::atomic<int> sleepers_{0};
};

}  // namespace joule::engine
