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
  explicit SyncScheduler(std::unique_ptr<ReadyQueue> policy) : policy_(std::move(policy)) {}

  void push(Task* t, int worker);
  void push_many(Task* const* tasks, int n, int worker);
  Task* pop(int worker);
  std::int64_t size() const noexcept { return size_.load(std::memory_order_seq_cst); }

 private:
  // Idle workers poll size_ without the lock: keep it off the lock's line.
  alignas(64) rt::SpinLock lock_;
  alignas(64) std::atomic<std::int64_t> size_{0};
  std::unique_ptr<ReadyQueue> policy_;
};

}  // namespace joule::sched
