#include "polling_services.hpp"

#include <algorithm>
#include <chrono>

#include "clock.hpp"

namespace joule::engine {

namespace {
// The PollingServices whose poll runs on this thread now: remove() called
// from a service must not wait for the poll it is part of.
thread_local const PollingServices* t_polling = nullptr;
}  // namespace

void PollingServices::add(const char* name, Fn fn, void* data) {
  {
    std::lock_guard guard(list_mutex_);
    services_.push_back(Service{name ? name : "", fn, data, false});
    count_.fetch_add(1, std::memory_order_relaxed);
  }
  note_layer();
  std::lock_guard ticking(tick_mutex_);
  if (stop_) return;
  if (!ticker_.joinable()) ticker_ = std::thread([this] { tick(); });
  tick_cv_.notify_one();  // asleep while nothing was registered
}

void PollingServices::stop_ticker() {
  {
    std::lock_guard ticking(tick_mutex_);
    stop_ = true;
  }
  tick_cv_.notify_one();
  if (ticker_.joinable()) ticker_.join();
}

// The ticker: every kPollSleepNs while a service is registered, a round
// unless another thread ran one meanwhile (an idle worker, a task boundary).
void PollingServices::tick() {
  const auto period = std::chrono::nanoseconds(kPollSleepNs);
  std::unique_lock lock(tick_mutex_);
  while (!stop_) {
    if (!active()) {
      tick_cv_.wait(lock, [this] { return stop_ || active(); });
      continue;
    }
    if (tick_cv_.wait_for(lock, period, [this] { return stop_; })) break;
    const std::uint64_t last = last_round_ns_.load(std::memory_order_relaxed);
    if (core::now_ns() - last < std::uint64_t(kPollSleepNs)) continue;
    lock.unlock();
    if (poll()) ticker_rounds_.fetch_add(1, std::memory_order_relaxed);
    lock.lock();
  }
}

bool PollingServices::remove(Fn fn, void* data) {
  const bool inside = t_polling == this;
  std::unique_lock<std::mutex> run;
  if (!inside) run = std::unique_lock(run_mutex_);  // no poll runs it after we return
  std::lock_guard guard(list_mutex_);
  for (auto it = services_.begin(); it != services_.end(); ++it) {
    if (it->fn != fn || it->data != data || it->dropped) continue;
    if (inside) {
      it->dropped = true;  // the running poll erases it
    } else {
      services_.erase(it);
    }
    count_.fetch_sub(1, std::memory_order_relaxed);
    return true;
  }
  return false;
}

bool PollingServices::view(std::vector<ServiceView>& out) {
  std::unique_lock guard(list_mutex_, std::defer_lock);
  for (int i = 0; i < 1000 && !guard.try_lock(); ++i) std::this_thread::yield();
  if (!guard.owns_lock()) return false;
  for (const Service& s : services_)
    if (!s.dropped) out.push_back(ServiceView{s.name, s.last_ns, s.calls});
  return true;
}

bool PollingServices::poll() {
  // A service that waits (a taskwait, a blocking call) reaches this poll
  // again on the same thread, which must not try_lock a mutex it holds.
  if (!active() || t_polling == this) return false;
  std::unique_lock run(run_mutex_, std::try_to_lock);
  if (!run.owns_lock()) return false;
  rounds_.fetch_add(1, std::memory_order_relaxed);
  const std::uint64_t round_ns = core::now_ns();
  last_round_ns_.store(round_ns, std::memory_order_relaxed);
  t_polling = this;
  // Services registered during this poll wait for the next one; the list
  // lock is not held while a service runs (it may register or unregister).
  std::size_t n;
  {
    std::lock_guard guard(list_mutex_);
    n = services_.size();
  }
  for (std::size_t i = 0; i < n; ++i) {
    Service s;
    {
      std::lock_guard guard(list_mutex_);
      if (services_[i].dropped) continue;
      services_[i].last_ns = round_ns;
      ++services_[i].calls;
      s = services_[i];
    }
    if (s.fn(s.data) == 0) continue;
    std::lock_guard guard(list_mutex_);
    if (!services_[i].dropped) {  // done: it leaves the list
      services_[i].dropped = true;
      count_.fetch_sub(1, std::memory_order_relaxed);
    }
  }
  t_polling = nullptr;
  std::lock_guard guard(list_mutex_);
  std::erase_if(services_, [](const Service& s) { return s.dropped; });
  return true;
}

}  // namespace joule::engine
