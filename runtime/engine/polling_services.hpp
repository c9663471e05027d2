// Polling services (the Nanos6 API's nanos6_register_polling_service): a
// function the runtime calls again and again, from idle workers and at task
// boundaries, until it returns true or is unregistered. Task-aware MPI
// layers (TAMPI) test their pending requests this way and unblock the tasks
// whose requests completed.
//
// One thread runs the list at a time (a try-lock: a busy thread never waits
// for another's poll), so a service never runs concurrently with itself,
// as the Nanos6 API documents. While any service is registered, idle
// threads sleep at most kPollSleepNs so the services keep running, and a
// ticker thread (started by the first registration, asleep on a condition
// variable while none is registered) runs them when nobody else has for
// kPollSleepNs: every worker may be busy in long task bodies, and a service
// is what ends them (a task-aware MPI request). With no service registered
// nothing of this costs anything: a task boundary reads one counter.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace joule::engine {

class PollingServices {
 public:
  using Fn = int (*)(void*);
  // Idle threads' longest sleep while a service is registered, and the
  // longest time the services go without a round (the ticker's period).
  static constexpr long kPollSleepNs = 200'000;

  PollingServices() = default;
  ~PollingServices() { stop_ticker(); }
  PollingServices(const PollingServices&) = delete;
  PollingServices& operator=(const PollingServices&) = delete;

  void add(const char* name, Fn fn, void* data);
  // Removes the first entry with this fn and data (name is informative);
  // waits until a poll running now has finished, unless called from that
  // poll. False when no such service is registered.
  bool remove(Fn fn, void* data);
  // Any service registered (one relaxed load: the hot paths ask this).
  bool active() const noexcept { return count_.load(std::memory_order_relaxed) > 0; }
  // Runs each service once unless another thread is running them now.
  // True when it ran at least one.
  bool poll();
  // poll() if any service is registered (a relaxed load otherwise).
  void poll_if_active() {
    if (active()) poll();
  }
  // An idle thread's longest sleep: short while services must keep running.
  long sleep_cap(long limit_ns) const noexcept { return active() ? kPollSleepNs : limit_ns; }
  int count() const noexcept { return count_.load(std::memory_order_relaxed); }
  // A task-aware layer is present: a service was registered once, or a
  // layer said so (an independent task spawned through ALPI, which TAMPI's
  // polling task is). Sticky: between polls a layer may have none
  // registered (its polling task waits in the ready queue).
  void note_layer() noexcept { layer_.store(true, std::memory_order_relaxed); }
  bool layer() const noexcept { return layer_.load(std::memory_order_relaxed); }
  // Calls of poll() that ran the list (tests, reports); of those, the
  // ticker's (every thread that could poll was busy for kPollSleepNs).
  std::uint64_t rounds() const noexcept { return rounds_.load(std::memory_order_relaxed); }
  std::uint64_t ticker_rounds() const noexcept {
    return ticker_rounds_.load(std::memory_order_relaxed);
  }
  // Ends the ticker (the runtime stops: every task has finished).
  void stop_ticker();

  // For the state dump: each registered service, when a round last started
  // it (core::now_ns) and how many rounds did. False, nothing copied, when
  // the list stayed locked (a registration now) through every try.
  struct ServiceView {
    std::string name;
    std::uint64_t last_ns;
    std::uint64_t calls;
  };
  bool view(std::vector<ServiceView>& out);
  std::uint64_t last_round_ns() const noexcept {
    return last_round_ns_.load(std::memory_order_relaxed);
  }

 private:
  struct Service {
    std::string name;
    Fn fn;
    void* data;
    bool dropped;               // unregistered from inside a poll
    std::uint64_t last_ns = 0;  // when a round last called it
    std::uint64_t calls = 0;
  };
  std::mutex list_mutex_;  // guards services_
  std::mutex run_mutex_;   // held while one thread polls
  std::vector<Service> services_;
  std::atomic<int> count_{0};
  std::atomic<bool> layer_{false};
  std::atomic<std::uint64_t> rounds_{0};
  std::atomic<std::uint64_t> last_round_ns_{0};  // when a poll last ran the list

  void tick();
  std::mutex tick_mutex_;  // guards ticker_ and stop_; with tick_cv_
  std::condition_variable tick_cv_;
  std::thread ticker_;
  bool stop_ = false;
  std::atomic<std::uint64_t> ticker_rounds_{0};
};

}  // namespace joule::engine
