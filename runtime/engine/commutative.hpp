// Mutual exclusion for commutative accesses. A token stands for a group of
// commutative accesses to the same data; a task runs only while holding all
// its tokens, taken all-or-nothing (so no deadlock), and a task that finds a
// token busy parks on it until the holder releases it.
#pragma once

#include <atomic>
#include <vector>

#include "small_vector.hpp"
#include "spin_lock.hpp"
#include "task.hpp"

namespace joule::engine {

using namespace joule::core;

class CommutativeToken {
 public:
  void ref() noexcept { refs_.fetch_add(1, std::memory_order_relaxed); }
  void unref() noexcept {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  bool try_acquire() noexcept;
  // Parks t and returns true if the token is busy; false if it is free now.
  bool park_if_busy(Task* t);
  // Frees the token and hands it on. When every parked task needs this
  // token alone (a reduction, an accumulation), only the one parked longest
  // is appended to `wake`: it takes the token and its release wakes the
  // next, or another task took it first and that one's release does. Waking
  // all would re-queue P tasks per release, O(P^2) for P contending tasks,
  // to have P - 1 of them park again. A task that needs several tokens may
  // fail on another one without ever holding this one, so while such a task
  // is parked here, all are woken.
  void release(std::vector<Task*>& wake);

 private:
  SpinLock lock_;
  bool busy_ = false;
  SmallVector<Task*, 2> parked_;
  std::size_t parked_head_ = 0;  // parked_[parked_head_..] still wait, oldest first
  int parked_multi_ = 0;         // of those, tasks that need more than this token
  std::atomic<int> refs_{1};
};

// Records that t needs tok (once) and keeps tok alive while t does.
void hold_token(Task* t, CommutativeToken* tok);
// Takes all of t's tokens, or none (returns false); with `park`, t then waits
// on a busy token and is re-queued when its holder releases it.
bool acquire_tokens(Task* t, std::vector<Task*>& wake, bool park);
// Releases all of t's tokens and drops t's references to them.
void release_tokens(Task* t, std::vector<Task*>& wake);

}  // namespace joule::engine
