// Intrusive doubly-linked list of tasks through Task::q_next / q_prev, so
// queues never allocate.
#pragma once

#include "task.hpp"

namespace joule::queues {

class TaskList {
 public:
  bool empty() const noexcept { return head_ == nullptr; }

  void push_back(core::Task* t) noexcept {
    t->q_next = nullptr;
    t->q_prev = tail_;
    (tail_ ? tail_->q_next : head_) = t;
    tail_ = t;
  }
  void push_front(core::Task* t) noexcept {
    t->q_prev = nullptr;
    t->q_next = head_;
    (head_ ? head_->q_prev : tail_) = t;
    head_ = t;
  }
  core::Task* pop_front() noexcept {
    core::Task* t = head_;
    if (t) unlink(t);
    return t;
  }
  core::Task* pop_back() noexcept {
    core::Task* t = tail_;
    if (t) unlink(t);
    return t;
  }

 private:
  void unlink(core::Task* t) noexcept {
    (t->q_prev ? t->q_prev->q_next : head_) = t->q_next;
    (t->q_next ? t->q_next->q_prev : tail_) = t->q_prev;
    t->q_next = t->q_prev = nullptr;
  }
  core::Task* head_ = nullptr;
  core::Task* tail_ = nullptr;
};

}  // namespace joule::queues
