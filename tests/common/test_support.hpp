// Small helpers shared by joule's black-box tests: waiting without timing
// assertions, busy spins, scoped environment variables and temporary files.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <unistd.h>

namespace joule_test {

using namespace std::chrono_literals;

// Polls cond() (yielding) until it holds or timeout passes. Returns the last
// value of cond(), so a test asserts on the outcome, never on the time taken.
template <class Cond>
bool eventually(Cond&& cond, std::chrono::milliseconds timeout = 20s) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!cond()) {
    if (std::chrono::steady_clock::now() >= deadline) return cond();
    std::this_thread::yield();
  }
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

// A file with the given contents, removed at scope exit.
class temp_file {
 public:
  explicit temp_file(const std::string& contents) {
    char tmpl[] = "/tmp/joule_test_XXXXXX";
    const int fd = ::mkstemp(tmpl);
    if (fd >= 0) ::close(fd);
    path_ = tmpl;
    std::ofstream(path_) << contents;
  }
  ~temp_file() { std::remove(path_.c_str()); }
  temp_file(const temp_file&) = delete;
  temp_file& operator=(const temp_file&) = delete;
  const std::string& path() const { return path_; }

 private:
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
