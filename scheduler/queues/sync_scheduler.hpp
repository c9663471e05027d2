// The locks around a ReadyQueue policy. All synchronisation of the ready
// queues lives here. A plain policy is one shard behind one lock; a sharded
// policy (work-stealing) gets one shard per worker, each with its own lock
// and count, and thieves take half a victim's shard at a time. When the
// policy is a plain deque (ReadyQueue::owner_deque) a worker's own pushes and
// pops go to a lock-free OwnerDeque and never touch a line a thief writes.
// The atomic counts let idle workers poll without any lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

#include "affinity_map.hpp"
#include "owner_deque.hpp"
#include "ready_queue.hpp"
#include "spin_lock.hpp"
#include "task_list.hpp"

namespace joule::queues {

class SyncScheduler {
 public:
  // make: builds one policy instance (called once per shard). shards: the
  // most workers that may ever run (guests on borrowed CPUs included);
  // workers: those the process owns (affinity keys map onto them).
  SyncScheduler(const std::function<std::unique_ptr<ReadyQueue>()>& make, int shards, int workers);

  // worker: the calling thread's worker index (-1: not a worker).
  void push(Task* t, int worker);
  // Queues t where `worker` would have, from a thread that is not `worker`.
  void push_for(Task* t, int worker);
  void push_many(Task* const* tasks, int n, int worker);
  Task* pop(int worker) {
    Task* t = nullptr;
    return pop_batch(worker, &t, 1) ? t : nullptr;
  }
  // Pops up to `max` tasks into `out`. From one's own shard it takes more
  // than one only when the shard is long (a quarter of it per worker at most);
  // a thief takes up to half of its victim. Returns how many.
  int pop_batch(int worker, Task** out, int max);
  std::int64_t size() const noexcept;
  // Ready tasks queued for one worker (its shard; the whole queue when the
  // policy is not sharded).
  std::int64_t size_of(int worker) const noexcept;
  // Ready tasks `worker` may take (-1: a thread that is not a worker): every
  // shard's unpinned tasks plus its own pinned ones. Idle threads sleep on
  // this, so another worker's pinned tasks do not keep them spinning.
  std::int64_t available_to(int worker) const noexcept;
  // Keyed tasks go where the energy controller mapped their key; while the
  // map is pinned they wait for that worker alone. Set before tasks flow.
  void set_affinity_map(const core::AffinityMap* map) noexcept { map_ = map; }
  // The policy's order matters to the end (see ReadyQueue::batchable).
  bool order_matters() const noexcept { return !batchable_; }
  // The policy queues tasks where their data is (ReadyQueue::follows_data).
  bool follows_data() const noexcept { return follows_data_; }

 private:
  struct Shard {
    alignas(64) core::SpinLock lock;
    std::unique_ptr<ReadyQueue> queue;
    // Polled by idle workers: off the lock's line.
    alignas(64) std::atomic<std::int64_t> size{0};
    // Pinned keyed tasks (see set_affinity_map): only the owner takes them.
    std::atomic<std::int64_t> pinned_size{0};
    TaskList pinned;
    // The owner's lock-free end (owner_deque policies only).
    std::unique_ptr<OwnerDeque> own;
    std::int64_t ready() const noexcept {
      return size.load(std::memory_order_seq_cst) + (own ? own->size() : 0);
    }
  };
  // Pauses a thief waits for a one-task shard to grow (see pop_batch).
  static constexpr int kStealPatience = 64;
  int shard_of(const Task* t, int worker);
  int take(Shard& s, int worker, Task** out, int max, bool steal);
  int take_locked(Shard& s, int worker, Task** out, int max, bool steal);
  void push_locked_counted(Shard& s, Task* t, int worker);
  // A plain deque keeps an unkeyed task with the worker that made it ready
  // (ReadyQueue::owner_deque): the common case, decided without asking.
  bool stays_with(const Task* t, int worker) const noexcept {
    return owner_deque_ && t->affinity == JOULE_NO_AFFINITY && worker >= 0 && worker < shard_count_;
  }
  bool pins(const Task* t) const noexcept {
    return map_ && sharded_ && t->affinity != JOULE_NO_AFFINITY && map_->pinned();
  }
  // Pushes to s (its lock held); true if the task went to the pinned list.
  bool push_locked(Shard& s, Task* t, int worker);
  int take_pinned(Shard& s, Task** out, int max);

  std::unique_ptr<Shard[]> shards_;
  int shard_count_ = 1;
  bool sharded_ = false;
  bool batchable_ = true;
  bool follows_data_ = false;
  bool owner_deque_ = false;
  const int workers_;
  std::atomic<unsigned> next_external_{0};
  const core::AffinityMap* map_ = nullptr;
};

}  // namespace joule::queues
