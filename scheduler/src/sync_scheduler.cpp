#include "sync_scheduler.hpp"

#include <algorithm>
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

int SyncScheduler::pop_batch(int worker, Task** out, int max) {
  if (size_.load(std::memory_order_relaxed) == 0) return 0;
  std::lock_guard guard(lock_);
  std::int64_t take = 1;
  if (max > 1 && policy_->batchable())
    take = std::clamp<std::int64_t>(size_.load(std::memory_order_relaxed) / (4 * workers_), 1, max);
  int n = 0;
  while (n < take) {
    Task* t = policy_->pop(worker);
    if (!t) break;
    out[n++] = t;
  }
  if (n) size_.fetch_sub(n, std::memory_order_relaxed);
  return n;
}

Task* SyncScheduler::pop(int worker) {
  if (size_.load(std::memory_order_relaxed) == 0) return nullptr;
  std::lock_guard guard(lock_);
  Task* t = policy_->pop(worker);
  if (t) size_.fetch_sub(1, std::memory_order_relaxed);
  return t;
}

}  // namespace joule::sched
