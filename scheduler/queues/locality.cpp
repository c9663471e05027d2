// locality: keeps the cache reuse that a program's creation order and its
// data give (docs/internals-scheduling.md, "Locality").
//  - A ready task goes to the shard of the worker that last wrote the data it
//    writes (Task::data_home, set when that predecessor completed), so a
//    block updated step after step stays on one worker, in its cache.
//    Tasks with no such history go to their affinity key's worker, or stay
//    with the worker that released them.
//  - A worker runs its own tasks oldest first (creation order, by task id):
//    consecutive tasks of a program usually share an input (a row or a
//    column panel), and running them back to back reuses it.
//  - A thief takes the newest tasks, the ones furthest in the graph from
//    what the victim is working through.
#include <cstdint>
#include <deque>
#include <utility>

#include "policy_registry.hpp"

namespace joule::queues {
namespace {

class Locality final : public ReadyQueue {
 public:
  // Tasks arrive nearly in id order: the insertion scan is short.
  void push(Task* t, int) override {
    const std::uint64_t id = t->id;
    auto pos = queue_.end();
    while (pos != queue_.begin() && std::prev(pos)->first > id) --pos;
    queue_.emplace(pos, id, t);
  }
  Task* pop(int) override { return take_front(); }
  Task* steal(int) override {
    if (queue_.empty()) return nullptr;
    Task* t = queue_.back().second;
    queue_.pop_back();
    return t;
  }
  bool sharded() const override { return true; }
  bool follows_data() const override { return true; }
  int home_shard(const Task* t, int worker, int shards, int key_home) const override {
    const int home = t->data_home.load(std::memory_order_relaxed);
    if (home >= 0 && home < shards) return home;
    return key_home >= 0 ? key_home : worker;
  }

 private:
  Task* take_front() {
    if (queue_.empty()) return nullptr;
    Task* t = queue_.front().second;
    queue_.pop_front();
    return t;
  }

  std::deque<std::pair<std::uint64_t, Task*>> queue_;  // ascending id
};

}  // namespace

std::unique_ptr<ReadyQueue> make_locality(int) { return std::make_unique<Locality>(); }

}  // namespace joule::queues
