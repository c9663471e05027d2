#include "commutative.hpp"

#include <algorithm>
#include <mutex>

#include "task.hpp"

namespace joule::engine {

using namespace joule::core;

bool CommutativeToken::try_acquire() noexcept {
  std::lock_guard guard(lock_);
  if (busy_) return false;
  busy_ = true;
  return true;
}

bool CommutativeToken::park_if_busy(Task* t) {
  std::lock_guard guard(lock_);
  if (!busy_) return false;
  parked_.push_back(t);
  if (t->tokens.size() > 1) ++parked_multi_;
  return true;
}

void CommutativeToken::release(std::vector<Task*>& wake) {
  std::lock_guard guard(lock_);
  busy_ = false;
  if (parked_head_ == parked_.size()) return;
  if (parked_multi_ > 0) {
    for (std::size_t i = parked_head_; i < parked_.size(); ++i) wake.push_back(parked_[i]);
    parked_head_ = parked_.size();
    parked_multi_ = 0;
  } else {
    wake.push_back(parked_[parked_head_++]);
  }
  if (parked_head_ == parked_.size()) {
    parked_.clear();
    parked_head_ = 0;
  }
}

void hold_token(Task* t, CommutativeToken* tok) {
  for (CommutativeToken* have : t->tokens)
    if (have == tok) return;
  tok->ref();
  t->tokens.push_back(tok);
  // A fixed global order (by address) for all-or-nothing acquisition.
  std::sort(t->tokens.begin(), t->tokens.end());
}

bool acquire_tokens(Task* t, std::vector<Task*>& wake, bool park) {
  for (;;) {
    std::size_t i = 0;
    while (i < t->tokens.size() && t->tokens[i]->try_acquire()) ++i;
    if (i == t->tokens.size()) return true;
    for (std::size_t j = 0; j < i; ++j) t->tokens[j]->release(wake);
    if (!park || t->tokens[i]->park_if_busy(t)) return false;
    // The holder let go in between: try again.
  }
}

void release_tokens(Task* t, std::vector<Task*>& wake) {
  for (CommutativeToken* tok : t->tokens) {
    tok->release(wake);
    tok->unref();
  }
  t->tokens.clear();
}

}  // namespace joule::engine
