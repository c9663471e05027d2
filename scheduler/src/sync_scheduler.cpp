#include "sync_scheduler.hpp"

#include <mutex>

namespace joule::sched {

void SyncScheduler::push(Task* t, int worker) {
  std::lock_guard guard(lock_);
  policy_->push(t, worker);
  size_.fetch_add(1, std::memory_order_seq_cst);
}

void SyncScheduler::push_many(Task* const* tasks, int n, int worker) {
  std::lock_guard guard(lock_);
  for (int i = 0; i < n; ++i) policy_->push(tasks[i], worker);
  size_.fetch_add(n, std::memory_order_seq_cst);
}

Task* SyncScheduler::pop(int worker) {
  if (size_.load(std::memory_order_relaxed) == 0) return nullptr;
  std::lock_guard guard(lock_);
  Task* t = policy_->pop(worker);
  if (t) size_.fetch_sub(1, std::memory_order_relaxed);
  return t;
}

}  // namespace joule::sched
