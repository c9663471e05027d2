#include "sync_scheduler.hpp"

#include <algorithm>
#include <mutex>

namespace joule::queues {

SyncScheduler::SyncScheduler(const std::function<std::unique_ptr<ReadyQueue>()>& make, int shards,
                             int workers)
    : workers_(workers > 0 ? workers : 1) {
  auto first = make();
  sharded_ = first->sharded();
  batchable_ = first->batchable();
  follows_data_ = first->follows_data();
  owner_deque_ = sharded_ && first->owner_deque();
  shard_count_ = sharded_ ? std::max(shards, 1) : 1;
  shards_ = std::make_unique<Shard[]>(std::size_t(shard_count_));
  shards_[0].queue = std::move(first);
  for (int i = 1; i < shard_count_; ++i) shards_[i].queue = make();
  if (owner_deque_)
    for (int i = 0; i < shard_count_; ++i)
      shards_[i].own = std::make_unique<OwnerDeque>(shards_[i].lock);
}

int SyncScheduler::shard_of(const Task* t, int worker) {
  if (!sharded_) return 0;
  // Threads that are not workers spread their tasks round-robin.
  if (worker < 0)
    worker = int(next_external_.fetch_add(1, std::memory_order_relaxed) % unsigned(workers_));
  int key_home = -1;
  if (t->affinity != JOULE_NO_AFFINITY) {
    const int w = map_ ? map_->worker_of(t->affinity) : -1;
    if (w >= 0 && w < shard_count_) return w;
    key_home =
        map_ ? map_->spread(t->affinity, workers_) : int(t->affinity % std::uint64_t(workers_));
  }
  const int s = shards_[0].queue->home_shard(t, worker, workers_, key_home);
  return s >= 0 && s < shard_count_ ? s : worker % shard_count_;
}

void SyncScheduler::push(Task* t, int worker) {
  if (stays_with(t, worker)) return shards_[worker].own->push(t);
  const int home = shard_of(t, worker);
  if (owner_deque_ && home == worker && !pins(t)) return shards_[home].own->push(t);
  push_locked_counted(shards_[home], t, worker);
}

void SyncScheduler::push_for(Task* t, int worker) {
  push_locked_counted(shards_[shard_of(t, worker)], t, worker);
}

void SyncScheduler::push_locked_counted(Shard& s, Task* t, int worker) {
  std::lock_guard guard(s.lock);
  if (!push_locked(s, t, worker)) s.size.fetch_add(1, std::memory_order_seq_cst);
}

bool SyncScheduler::push_locked(Shard& s, Task* t, int worker) {
  if (!pins(t)) {
    s.queue->push(t, worker);
    return false;
  }
  s.pinned.push_back(t);
  s.pinned_size.fetch_add(1, std::memory_order_seq_cst);
  return true;
}

// Consecutive tasks for the same shard are pushed under one lock.
void SyncScheduler::push_many(Task* const* tasks, int n, int worker) {
  for (int i = 0; i < n;) {
    if (stays_with(tasks[i], worker)) {
      shards_[worker].own->push(tasks[i++]);
      continue;
    }
    const int home = shard_of(tasks[i], worker);
    Shard& s = shards_[home];
    if (owner_deque_ && home == worker && !pins(tasks[i])) {
      s.own->push(tasks[i++]);
      continue;
    }
    int pushed = 0;
    std::lock_guard guard(s.lock);
    do {
      if (!push_locked(s, tasks[i++], worker)) ++pushed;
    } while (i < n && shard_of(tasks[i], worker) == home);
    if (pushed) s.size.fetch_add(pushed, std::memory_order_seq_cst);
  }
}

// Pinned tasks run in the order they became ready.
int SyncScheduler::take_pinned(Shard& s, Task** out, int max) {
  if (s.pinned_size.load(std::memory_order_relaxed) == 0) return 0;
  std::lock_guard guard(s.lock);
  int n = 0;
  while (n < max)
    if (Task* t = s.pinned.pop_front())
      out[n++] = t;
    else
      break;
  if (n) s.pinned_size.fetch_sub(n, std::memory_order_relaxed);
  return n;
}

// The owner's lock-free end first: its own newest task, or a thief's claim
// on the oldest; then what other threads pushed to the shard.
int SyncScheduler::take(Shard& s, int worker, Task** out, int max, bool steal) {
  if (s.own && !steal)
    if (Task* t = s.own->pop()) {
      out[0] = t;
      return 1;
    }
  if (s.own && steal && s.own->size() > 0) {
    std::lock_guard guard(s.lock);
    if (int n = s.own->steal(out, max)) return n;
  }
  if (s.size.load(std::memory_order_relaxed) == 0) return 0;
  std::lock_guard guard(s.lock);
  return take_locked(s, worker, out, max, steal);
}

// From one's own shard a worker takes more than one task only when the shard
// is long (a quarter of it per worker at most); a thief takes up to half.
int SyncScheduler::take_locked(Shard& s, int worker, Task** out, int max, bool steal) {
  std::int64_t take = 1;
  if (max > 1 && batchable_) {
    const std::int64_t size = s.size.load(std::memory_order_relaxed);
    take = std::clamp<std::int64_t>(steal ? size / 2 : size / (4 * workers_), 1, max);
  }
  int n = 0;
  while (n < take) {
    Task* t = steal ? s.queue->steal(worker) : s.queue->pop(worker);
    if (!t) break;
    out[n++] = t;
  }
  if (n) s.size.fetch_sub(n, std::memory_order_relaxed);
  return n;
}

// A thief that would take less than a full batch waits a moment first:
// when a producer is streaming tasks, the victim's shard grows meanwhile and
// the thief takes a full batch under one lock instead of fighting the
// producer for its lock on every task. A lone long task is taken a few µs
// later.
int SyncScheduler::pop_batch(int worker, Task** out, int max) {
  if (!sharded_) return take(shards_[0], worker, out, max, false);
  const bool owner = worker >= 0 && worker < shard_count_;
  if (owner)
    if (int n = take(shards_[worker], worker, out, max, false)) return n;
  if (owner)
    if (int n = take_pinned(shards_[worker], out, 1)) return n;
  const int start = owner ? worker + 1 : 0;
  const std::int64_t full = batchable_ ? 2 * std::int64_t(max) : 1;
  int partial = -1;
  for (int i = 0; i < shard_count_; ++i) {
    const int victim = (start + i) % shard_count_;
    if (victim == worker) continue;
    const std::int64_t size = shards_[victim].ready();
    if (size >= full) return take(shards_[victim], worker, out, max, true);
    if (size > 0 && partial < 0) partial = victim;
  }
  if (partial < 0) return 0;
  Shard& s = shards_[partial];
  for (int spin = 0; spin < kStealPatience && s.ready() < full; ++spin) core::cpu_relax();
  return take(s, worker, out, max, true);
}

std::int64_t SyncScheduler::size() const noexcept {
  std::int64_t total = 0;
  for (int i = 0; i < shard_count_; ++i)
    total += shards_[i].ready() + shards_[i].pinned_size.load(std::memory_order_seq_cst);
  return total;
}

std::int64_t SyncScheduler::available_to(int worker) const noexcept {
  std::int64_t total = 0;
  for (int i = 0; i < shard_count_; ++i) total += shards_[i].ready();
  if (worker >= 0 && worker < shard_count_)
    total += shards_[worker].pinned_size.load(std::memory_order_seq_cst);
  return total;
}

std::int64_t SyncScheduler::size_of(int worker) const noexcept {
  if (!sharded_) return size();
  if (worker < 0 || worker >= shard_count_) return 0;
  const Shard& s = shards_[worker];
  return s.ready() + s.pinned_size.load(std::memory_order_relaxed);
}

}  // namespace joule::queues
