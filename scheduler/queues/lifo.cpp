// lifo: one stack, newest ready task first (depth-first, cache-warm).
#include "policy_registry.hpp"
#include "task_list.hpp"

namespace joule::queues {
namespace {

class Lifo final : public ReadyQueue {
 public:
  void push(Task* t, int) override { list_.push_back(t); }
  Task* pop(int) override { return list_.pop_back(); }
  bool newest_first() const override { return true; }

 private:
  TaskList list_;
};

}  // namespace

std::unique_ptr<ReadyQueue> make_lifo(int) { return std::make_unique<Lifo>(); }

}  // namespace joule::queues
