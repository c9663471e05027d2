// work-stealing: a deque per worker. A worker pushes and pops at the back of
// its own deque (depth-first, cache-warm) and steals from the front of the
// others' (the oldest, usually largest, work). Tasks with an affinity key go
// to the deque of worker key % n, so iterative codes keep data on one core.
#include <vector>

#include "policy_registry.hpp"
#include "task_list.hpp"

namespace joule::sched {
namespace {

class WorkStealing final : public ReadyQueue {
 public:
  explicit WorkStealing(int n) : deques_(n > 0 ? n : 1) {}

  void push(Task* t, int worker) override {
    const int n = int(deques_.size());
    int target = worker >= 0 ? worker % n : next_external_++ % n;
    if (t->affinity != JOULE_NO_AFFINITY) target = int(t->affinity % unsigned(n));
    deques_[target].push_back(t);
  }

  Task* pop(int worker) override {
    const int n = int(deques_.size());
    const int self = worker >= 0 ? worker % n : 0;
    if (Task* t = deques_[self].pop_back()) return t;
    for (int i = 1; i < n; ++i)
      if (Task* t = deques_[(self + i) % n].pop_front()) return t;
    return nullptr;
  }

 private:
  std::vector<TaskList> deques_;
  unsigned next_external_ = 0;
};

}  // namespace

std::unique_ptr<ReadyQueue> make_work_stealing(int n) { return std::make_unique<WorkStealing>(n); }

}  // namespace joule::sched
