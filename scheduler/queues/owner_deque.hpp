// A worker's own deque of ready tasks, with a lock-free owner end. The owner
// pushes and pops at the back with plain stores and one fence; thieves take
// from the front, one thief at a time (the caller holds the shard's lock).
// This is the THE protocol of Cilk-5: the owner publishes its new back before
// reading the front, a thief publishes its new front before reading the back,
// and a fence on each side guarantees at least one of them sees the other;
// a conflict over the last tasks is settled under the lock. The owner never
// touches a line a thief writes on its own push and pop, which is what lets
// a producer stream tasks while another worker steals them.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "spin_lock.hpp"
#include "task.hpp"

namespace joule::queues {

class OwnerDeque {
 public:
  // Most tasks one steal may take; the owner keeps this many slots spare so
  // that a thief still reading what it claimed is never overwritten.
  static constexpr std::int64_t kMaxSteal = 64;

  explicit OwnerDeque(core::SpinLock& lock) : lock_(lock) { grow(kInitial); }

  // Tasks in the deque (a snapshot; may be briefly off by one while the
  // owner and a thief race for the last task).
  std::int64_t size() const noexcept {
    const std::int64_t n =
        tail_.load(std::memory_order_seq_cst) - head_.load(std::memory_order_seq_cst);
    return n > 0 ? n : 0;
  }

  // Owner only. The seq_cst store orders the push before the caller's check
  // for sleeping workers (Idle::wake_after_publish).
  void push(core::Task* t) { push_many(&t, 1); }

  // Owner only: n tasks, tasks[n - 1] the newest (the next pop), published
  // by one store of the back: what a thief brings home from a steal costs
  // one locked instruction, not one per task.
  void push_many(core::Task* const* tasks, int n) {
    const std::int64_t tail = tail_.load(std::memory_order_relaxed);
    make_room(tail, n);
    for (int i = 0; i < n; ++i) slot(tail + i).store(tasks[i], std::memory_order_relaxed);
    tail_.store(tail + n, std::memory_order_seq_cst);
  }

  // Owner only: the newest task, or nullptr.
  core::Task* pop() {
    const std::int64_t tail = tail_.load(std::memory_order_relaxed) - 1;
    tail_.store(tail, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (head_.load(std::memory_order_relaxed) <= tail)
      return slot(tail).load(std::memory_order_relaxed);
    // Empty, or a thief is claiming the last tasks: settle it under the lock.
    tail_.store(tail + 1, std::memory_order_relaxed);
    std::lock_guard guard(lock_);
    return pop_locked();
  }

  // Owner only, at its start: the ring again, allocated and written by the
  // owner's thread, so that its pages come from the owner's NUMA node
  // (first touch) rather than the thread that built the scheduler.
  void rehome() {
    std::lock_guard guard(lock_);
    grow(capacity_);
  }

  // A thief, holding the lock: up to `max` of the oldest tasks into out,
  // never more than half of what is there (at least one). Returns how many.
  int steal(core::Task** out, int max) {
    const std::int64_t head = head_.load(std::memory_order_relaxed);
    std::int64_t n = tail_.load(std::memory_order_acquire) - head;
    if (n <= 0) return 0;
    n = std::min<std::int64_t>({n > 1 ? n / 2 : 1, max, kMaxSteal});
    head_.store(head + n, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    const std::int64_t tail = tail_.load(std::memory_order_acquire);
    if (head + n > tail) {  // the owner popped into our claim: keep what is left
      n = tail > head ? tail - head : 0;
      head_.store(head + n, std::memory_order_relaxed);
    }
    for (std::int64_t i = 0; i < n; ++i) out[i] = slot(head + i).load(std::memory_order_relaxed);
    return int(n);
  }

 private:
  static constexpr std::int64_t kInitial = 256;

  std::atomic<core::Task*>& slot(std::int64_t i) const noexcept {
    return slots_[i & (capacity_ - 1)];
  }

  // Under the lock: thieves are out, only the owner can move the back.
  core::Task* pop_locked() {
    const std::int64_t tail = tail_.load(std::memory_order_relaxed) - 1;
    if (head_.load(std::memory_order_relaxed) > tail) return nullptr;
    tail_.store(tail, std::memory_order_relaxed);
    return slot(tail).load(std::memory_order_relaxed);
  }

  // Room for n more tasks above `tail`. The front only moves forward
  // (beyond a thief's own claim, which the margin covers), so a stale copy
  // errs on the side of "full" and the thieves' line is read only when the
  // deque looks nearly full.
  void make_room(std::int64_t tail, std::int64_t n) {
    if (tail + n - head_seen_ + kMaxSteal <= capacity_) [[likely]]
      return;
    head_seen_ = head_.load(std::memory_order_acquire);
    const std::int64_t need = tail + n - head_seen_ + kMaxSteal;
    if (need <= capacity_) return;
    std::int64_t capacity = capacity_ * 2;
    while (capacity < need) capacity *= 2;
    std::lock_guard guard(lock_);
    grow(capacity);
  }

  // Under the lock (or before any thief can see the deque). The copy works
  // on locals: through the members every slot would reload the ring.
  void grow(std::int64_t capacity) {
    auto bigger = std::make_unique<std::atomic<core::Task*>[]>(std::size_t(capacity));
    const std::int64_t head = head_.load(std::memory_order_relaxed);
    const std::int64_t tail = tail_.load(std::memory_order_relaxed);
    const std::atomic<core::Task*>* from = slots_.get();
    const std::int64_t from_mask = capacity_ - 1;
    const std::int64_t to_mask = capacity - 1;
    for (std::int64_t i = head; i < tail; ++i)
      bigger[std::size_t(i & to_mask)].store(from[i & from_mask].load(std::memory_order_relaxed),
                                             std::memory_order_relaxed);
    slots_ = std::move(bigger);
    capacity_ = capacity;
  }

  alignas(64) std::atomic<std::int64_t> head_{0};  // written by thieves, under the lock
  alignas(64) std::atomic<std::int64_t> tail_{0};  // written by the owner
  std::int64_t head_seen_ = 0;                     // owner's last read of head_
  std::int64_t capacity_ = 0;                      // a power of two
  std::unique_ptr<std::atomic<core::Task*>[]> slots_;
  core::SpinLock& lock_;
};

}  // namespace joule::queues
