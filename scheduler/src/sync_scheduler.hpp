// The lock around a ReadyQueue policy. All synchronisation of the ready queue
// lives here; the atomic count lets idle workers poll without the lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "ready_queue.hpp"
#include "spin_lock.hpp"

namespace joule::sched {

class SyncScheduler {
 public:
  SyncScheduler(std::unique_ptr<ReadyQueue> policy, int workers)
      : policy_(std::move(policy)), workers_(workers > 0 ? workers : 1) {}

  void push(Task* t, int worker);
  void push_many(Task* const* tasks, int n, int worker);
  Task* pop(int worker);
  // Pops up to `max` tasks into `out`, but takes more than one only when the
  // queue is long (a quarter of it per worker at most), so batching never
  // leaves other workers without work. Returns how many.
  int pop_batch(int worker, Task** out, int max);
  std::int64_t size() const noexcept { return size_.load(std::memory_order_seq_cst); }

 private:
  // Idle workers poll size_ without the lock: keep it off the lock's line.
  alignas(64) rt::SpinLock lock_;
  alignas(64) std::atomic<std::int64_t> size_{0};
  std::unique_ptr<ReadyQueue> policy_;
  const int workers_;
};

}  // namespace joule::sched
