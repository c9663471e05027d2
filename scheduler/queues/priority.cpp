// priority: highest task priority first; FIFO among equal priorities.
#include <functional>
#include <map>

#include "policy_registry.hpp"
#include "task_list.hpp"

namespace joule::queues {
namespace {

class Priority final : public ReadyQueue {
 public:
  void push(Task* t, int) override { levels_[t->priority].push_back(t); }
  bool batchable() const override { return false; }
  Task* pop(int) override {
    // Levels stay in the map once created: programs use few distinct
    // priorities, and keeping them avoids a node allocation per push.
    for (auto& [prio, list] : levels_)
      if (Task* t = list.pop_front()) return t;
    return nullptr;
  }

 private:
  std::map<int, TaskList, std::greater<>> levels_;
};

}  // namespace

std::unique_ptr<ReadyQueue> make_priority(int) { return std::make_unique<Priority>(); }

}  // namespace joule::queues
