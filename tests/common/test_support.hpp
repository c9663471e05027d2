// Small helpers shared by joule's black-box tests: waiting without timing
// assertions (eventually, holds_for, finishes_within: a generous timeout
// bounds a wait, the outcome is what is asserted), busy spins, scoped
// environment variables and temporary files.
#pragma once

#include <unistd.h>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "temp_dir.hpp"

namespace joule_test {

using namespace std::chrono_literals;

// The pause between two polls of a condition: a yield at first (the event
// is usually near), then short sleeps, so that a long wait leaves the CPU to
// the threads it waits for (tests run on 2 CPUs, often with more workers).
inline void pause_between_polls(int polls) {
  if (polls < 100) {
    std::this_thread::yield();
  } else {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

// Polls cond() until it holds or timeout passes. Returns the last value of
// cond(), so a test asserts on the outcome, never on the time taken: use it
// instead of a sleep that "gives" another thread time to do something.
template <class Cond>
bool eventually(Cond&& cond, std::chrono::milliseconds timeout = 20s) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (int polls = 0; !cond(); ++polls) {
    if (std::chrono::steady_clock::now() >= deadline) return cond();
    pause_between_polls(polls);
  }
  return true;
}

// Polls cond() for the duration d: true if it held at every poll, false at
// the first poll where it did not. For "this must not happen" checks: the
// window only bounds how long the test looks; it can still fail at once.
template <class Cond>
bool holds_for(Cond&& cond, std::chrono::milliseconds d) {
  const auto end = std::chrono::steady_clock::now() + d;
  for (int polls = 0; std::chrono::steady_clock::now() < end; ++polls) {
    if (!cond()) return false;
    pause_between_polls(polls);
  }
  return cond();
}

// Runs fn on a thread of its own and waits up to timeout for it to return:
// true if it did (an exception it threw is rethrown here). A call that hangs
// cannot be interrupted: its thread is then left running, detached, and the
// test fails with a message instead of hanging until the ctest timeout (fn
// must then not touch what the test frees: capture shared state by value).
template <class Fn>
bool finishes_within(Fn fn, std::chrono::milliseconds timeout = 20s) {
  struct state {
    std::atomic<bool> done{false};
    std::exception_ptr error;
  };
  auto st = std::make_shared<state>();
  std::thread t([fn = std::move(fn), st]() mutable {
    try {
      fn();
    } catch (...) {
      st->error = std::current_exception();
    }
    st->done.store(true, std::memory_order_release);
  });
  if (!eventually([&] { return st->done.load(std::memory_order_acquire); }, timeout)) {
    t.detach();
    return false;
  }
  t.join();
  if (st->error) std::rethrow_exception(st->error);
  return true;
}

// Busy-waits for d: keeps the CPU like real work does, which widens the
// window in which a wrongly ordered task would run.
inline void spin_for(std::chrono::microseconds d) {
  if (d.count() <= 0) return;
  const auto until = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < until) {
  }
}

// Waits until flag is set or timeout passes; returns whether it was set. Used
// by "long" tasks that the test releases, so a failing test cannot hang.
inline bool wait_flag(const std::atomic<bool>& flag, std::chrono::milliseconds timeout = 20s) {
  return eventually([&] { return flag.load(std::memory_order_acquire); }, timeout);
}

// Sets (or unsets, with std::nullopt) an environment variable for the scope
// and restores the previous state. Environment tests must run sequentially
// in one process, before any runtime (and its threads) starts.
class scoped_env {
 public:
  scoped_env(std::string name, std::optional<std::string> value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    if (value) {
      ::setenv(name_.c_str(), value->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ~scoped_env() {
    if (old_) {
      ::setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// A file with the given contents in a fresh TempDir (temp_dir.hpp), removed
// with it at scope exit; a directory that cannot be made fails the test.
class temp_file {
 public:
  explicit temp_file(const std::string& contents) : path_(dir_.file("contents")) {
    std::ofstream(path_) << contents;
  }
  temp_file(const temp_file&) = delete;
  temp_file& operator=(const temp_file&) = delete;
  const std::string& path() const { return path_; }

 private:
  TempDir dir_;
  std::string path_;
};

// True when built with ThreadSanitizer or AddressSanitizer: loops shrink there.
constexpr bool under_sanitizer() {
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

}  // namespace joule_test
