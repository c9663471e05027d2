// Intrusive doubly-linked list of tasks through Task::q_next / q_prev, so
// queues never allocate.
#pragma once

#include "task.hpp"

namespace joule::sched {

class TaskList {
 public:
  bool empty() const noexcept { return head_ == nullptr; }

  void push_back(rt::Task* t) noexcept {
    t->q_next = nullptr;
    t->q_prev = tail_;
    (tail_ ? tail_->q_next : head_) = t;
    tail_ = t;
  }
  void push_front(rt::Task* t) noexcept {
    t->q_prev = nullptr;
    t->q_next = head_;
    (head_ ? head_->q_prev : tail_) = t;
    head_ = t;
  }
  rt::Task* pop_front() noexcept {
    rt::Task* t = head_;
    if (t) unlink(t);
    return t;
  }
  rt::Task* pop_back() noexcept {
    rt::Task* t = tail_;
    if (t) unlink(t);
    return t;
  }

 private:
  void unlink(rt::Task* t) noexcept {
    (t->q_prev ? t->q_prev->q_next : head_) = t->q_next;
    (t->q_next ? t->q_next->q_prev : tail_) = t->q_prev;
    t->q_next = t->q_prev = nullptr;
  }
  rt::Task* head_ = nullptr;
  rt::Task* tail_ = nullptr;
};

}  // namespace joule::sched
