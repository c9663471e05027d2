// work-stealing: a deque per worker, each its own shard. A worker pushes and
// pops at the back of its own deque (depth-first, cache-warm) and steals from
// the front of the others' (the oldest, usually largest, work). The worker's
// own end is ReadyQueues's lock-free OwnerDeque; this ring holds what other
// threads push to the shard (affinity keys, external threads). A task with
// an affinity key goes to its key's worker (contiguous runs of keys per
// worker), so iterative codes keep data on one core.
#include "policy_registry.hpp"
#include "task_ring.hpp"

namespace joule::queues {
namespace {

class WorkStealing final : public ReadyQueue {
 public:
  void push(Task* t, int) override { deque_.push_back(t); }
  Task* pop(int) override { return deque_.pop_back(); }
  Task* steal(int) override { return deque_.pop_front(); }
  bool sharded() const override { return true; }
  bool owner_deque() const override { return true; }
  bool newest_first() const override { return true; }
  int home_shard(const Task*, int worker, int, int key_home) const override {
    return key_home >= 0 ? key_home : worker;
  }

 private:
  TaskRing deque_;
};

}  // namespace

std::unique_ptr<ReadyQueue> make_work_stealing(int) { return std::make_unique<WorkStealing>(); }

}  // namespace joule::queues
