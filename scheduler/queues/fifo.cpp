// fifo: one queue, oldest ready task first (breadth-first).
#include "policy_registry.hpp"
#include "task_list.hpp"

namespace joule::queues {
namespace {

class Fifo final : public ReadyQueue {
 public:
  void push(Task* t, int) override { list_.push_back(t); }
  Task* pop(int) override { return list_.pop_front(); }

 private:
  TaskList list_;
};

}  // namespace

std::unique_ptr<ReadyQueue> make_fifo(int) { return std::make_unique<Fifo>(); }

}  // namespace joule::queues
