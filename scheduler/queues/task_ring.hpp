// A growable ring buffer of task pointers, usable from both ends. Unlike the
// intrusive TaskList it never touches the tasks themselves, so a thief
// holding a shard's lock reads one line per eight tasks instead of two lines
// per task written by another core. It grows by doubling and never shrinks:
// after the first burst a queue stops allocating.
#pragma once

#include <cstddef>
#include <vector>

#include "task.hpp"

namespace joule::queues {

class TaskRing {
 public:
  bool empty() const noexcept { return count_ == 0; }
  std::size_t size() const noexcept { return count_; }

  void push_back(core::Task* t) {
    if (count_ == slots_.size()) grow();
    slots_[(head_ + count_) & (slots_.size() - 1)] = t;
    ++count_;
  }
  core::Task* pop_back() noexcept {
    if (count_ == 0) return nullptr;
    --count_;
    return slots_[(head_ + count_) & (slots_.size() - 1)];
  }
  core::Task* pop_front() noexcept {
    if (count_ == 0) return nullptr;
    core::Task* t = slots_[head_];
    head_ = (head_ + 1) & (slots_.size() - 1);
    --count_;
    return t;
  }

 private:
  void grow() {
    std::vector<core::Task*> bigger(slots_.empty() ? 256 : slots_.size() * 2);
    for (std::size_t i = 0; i < count_; ++i) bigger[i] = slots_[(head_ + i) & (slots_.size() - 1)];
    slots_.swap(bigger);
    head_ = 0;
  }

  std::vector<core::Task*> slots_;  // size is 0 or a power of two
  std::size_t head_ = 0;
  std::size_t count_ = 0;
};

}  // namespace joule::queues
