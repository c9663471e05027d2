// A ready-queue policy: decides which ready task a worker runs next.
// Policies hold no locks: ReadyQueues serialises every call, so a policy is
// plain single-threaded code. A new policy is one file in policies/ plus one
// line in policy_registry.cpp.
#pragma once

#include <memory>

#include "task.hpp"

namespace joule::queues {

using core::Task;

class ReadyQueue {
 public:
  virtual ~ReadyQueue() = default;
  // worker: index of the calling worker, or -1 for a thread that is not one.
  virtual void push(Task* t, int worker) = 0;
  // nullptr when the policy has nothing for this worker.
  virtual Task* pop(int worker) = 0;
  // May a worker take several tasks at once (keeping them privately for a
  // moment)? Policies whose order matters to the end say no.
  virtual bool batchable() const { return true; }

  // A sharded policy keeps one instance per worker (a shard), each behind its
  // own lock, so pushing to and popping from one's own shard never contends.
  // The owner calls push/pop on its shard; other threads call steal.
  virtual bool sharded() const { return false; }
  virtual Task* steal(int thief) { return pop(thief); }
  // The policy is exactly a deque (owner: newest first; thieves: oldest
  // first) and keeps a task without an affinity key with the worker that
  // made it ready. ReadyQueues then keeps a worker's own pushes in a
  // lock-free OwnerDeque beside the policy, which only holds what other
  // threads push.
  virtual bool owner_deque() const { return false; }
  // Tasks go where their data is (Task::data_home): the engine then keeps a
  // released task as its immediate successor only when it is home.
  virtual bool follows_data() const { return false; }
  // A worker takes its own newest task first (a stack or the owner's end
  // of a deque): the engine then pushes the successors one completion
  // releases in reverse, so they run in the order they were registered.
  virtual bool newest_first() const { return false; }
  // The shard a task pushed by `worker` goes to (sharded policies only).
  // key_home: where the task's affinity key places it (AffinityMap::spread),
  // or -1 without a key.
  virtual int home_shard(const Task* /*t*/, int worker, int /*shards*/, int /*key_home*/) const {
    return worker;
  }
};

using PolicyFactory = std::unique_ptr<ReadyQueue> (*)(int num_workers);

}  // namespace joule::queues
