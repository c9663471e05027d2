// A single-producer, single-consumer ring in shared memory, usable across
// processes: positions are lock-free 64-bit atomics, and a doorbell word lets
// the consumer sleep in a process-shared futex instead of spinning.
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <ctime>

namespace joule::offload {

// Sleeps while *word == seen, at most timeout_ns (a shared, not private, futex:
// the waker may be the other process).
inline void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t seen, long timeout_ns) {
  timespec ts{timeout_ns / 1000000000L, timeout_ns % 1000000000L};
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT, seen, &ts, nullptr, 0);
}
inline void futex_wake(std::atomic<std::uint32_t>& word) {
  word.fetch_add(1, std::memory_order_release);
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE, 1, nullptr, nullptr, 0);
}

template <class T, std::uint64_t N>
class ShmRing {
  static_assert(std::atomic<std::uint64_t>::is_always_lock_free);
  static_assert((N & (N - 1)) == 0);

 public:
  // Producer: a free slot to fill, or null when full; then publish().
  T* slot() noexcept {
    const std::uint64_t t = tail_.load(std::memory_order_relaxed);
    if (t - head_.load(std::memory_order_acquire) == N) return nullptr;
    return &items_[t % N];
  }
  void publish() noexcept {
    tail_.fetch_add(1, std::memory_order_release);
    futex_wake(bell_);
  }
  // Consumer: the oldest item or null; then pop() once it has been read.
  T* front() noexcept {
    const std::uint64_t h = head_.load(std::memory_order_relaxed);
    if (h == tail_.load(std::memory_order_acquire)) return nullptr;
    return &items_[h % N];
  }
  void pop() noexcept { head_.fetch_add(1, std::memory_order_release); }
  // Consumer: sleeps until something is published or timeout_ns passes.
  void wait(long timeout_ns) noexcept {
    const std::uint32_t seen = bell_.load(std::memory_order_acquire);
    if (front()) return;
    futex_wait(bell_, seen, timeout_ns);
  }
  // Wakes a consumer sleeping in wait() (stop requests).
  void ring() noexcept { futex_wake(bell_); }

 private:
  alignas(64) std::atomic<std::uint64_t> head_{0};
  alignas(64) std::atomic<std::uint64_t> tail_{0};
  alignas(64) std::atomic<std::uint32_t> bell_{0};
  T items_[N];
};

}  // namespace joule::offload
