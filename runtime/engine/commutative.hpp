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
  // Frees the token; tasks parked on it are appended to `wake`.
  void release(std::vector<Task*>& wake);

 private:
  SpinLock lock_;
  bool busy_ = false;
  SmallVector<Task*, 2> parked_;
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
