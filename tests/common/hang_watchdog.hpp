// A hang fails a test with what it saw, well before ctest's timeout: after
// `seconds` the process aborts, printing what `describe` returns.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace joule_test {

class HangWatchdog {
 public:
  HangWatchdog(int seconds, std::function<std::string()> describe)
      : thread_([this, seconds, describe = std::move(describe)] {
          std::unique_lock lock(mutex_);
          if (!cv_.wait_for(lock, std::chrono::seconds(seconds), [this] { return done_; })) {
            std::fprintf(stderr, "hung: %s\n", describe().c_str());
            std::abort();
          }
        }) {}
  ~HangWatchdog() {
    {
      std::lock_guard guard(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  HangWatchdog(const HangWatchdog&) = delete;
  HangWatchdog& operator=(const HangWatchdog&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace joule_test
