#include "mpi_slack_driver.hpp"

#include <chrono>
#include <cstdio>
#include <ostream>

#include "clock.hpp"
#include "platform.hpp"

namespace joule::control {

using platform::Dvfs;
using platform::Platform;

// Lending is the lending layer's business (it lends at the call's entry):
// the state machine here only slows.
MpiSlackDriver::MpiSlackDriver(Platform& p, const energy::Options& opt)
    : p_(p), opt_(energy::mpi_slack_options(opt, false)) {}

MpiSlackDriver::~MpiSlackDriver() { end(); }

void MpiSlackDriver::begin(int workers) {
  std::lock_guard guard(mu_);
  slots_.assign(std::size_t(workers), Slot{energy::MpiSlack(opt_)});
}

bool MpiSlackDriver::controllable(int worker) const {
  Dvfs& d = p_.dvfs();
  const int dom = d.domain_of(p_.worker_cpu(worker));
  return dom >= 0 && d.domain_cpus(dom).size() == 1;
}

// The energy accounting charges a worker's time when its own thread passes
// an event, at the level of that moment: enter and leave split the call so
// that the slowed part is charged at fmin and the rest at the level before.
void MpiSlackDriver::enter(int worker) {
  const std::uint64_t now = core::now_ns();
  p_.charge_worker(worker, now, -1);
  std::lock_guard guard(mu_);
  if (stop_ || worker < 0 || std::size_t(worker) >= slots_.size()) return;
  Slot& s = slots_[std::size_t(worker)];
  const bool outer = !s.slack.in_call();
  s.slack.on_call_enter(now);
  if (!outer || !controllable(worker)) return;
  ++calls_;
  s.deadline = now + std::uint64_t(opt_.slack_s * 1e9);
  if (!timer_.joinable()) timer_ = std::thread([this] { timer_loop(); });
  cv_.notify_one();
}

void MpiSlackDriver::leave(int worker) {
  const std::uint64_t now = core::now_ns();
  std::lock_guard guard(mu_);
  if (worker < 0 || std::size_t(worker) >= slots_.size()) return;
  Slot& s = slots_[std::size_t(worker)];
  if (s.slack.on_call_exit(now) == energy::MpiSlack::Action::restore && s.saved_level >= 0) {
    p_.charge_worker(worker, s.slowed_at, s.saved_level);
    p_.charge_worker(worker, now, 0);
    restore(worker);
  }
  if (!s.slack.in_call()) s.deadline = 0;
}

void MpiSlackDriver::restore(int worker) {
  Slot& s = slots_[std::size_t(worker)];
  if (s.saved_level < 0) return;
  p_.dvfs().set_level(p_.worker_cpu(worker), s.saved_level);
  s.saved_level = -1;
}

void MpiSlackDriver::fire_due(std::uint64_t now) {
  for (std::size_t w = 0; w < slots_.size(); ++w) {
    Slot& s = slots_[w];
    if (!s.deadline || now < s.deadline) continue;
    s.deadline = 0;
    if (s.slack.poll(now) != energy::MpiSlack::Action::slow_down) continue;
    const int cpu = p_.worker_cpu(int(w));
    const int level = p_.dvfs().level(cpu);
    if (level <= 0 || !p_.dvfs().set_level(cpu, 0)) continue;
    s.saved_level = level;
    s.slowed_at = now;
    ++slowed_calls_;
  }
}

// Sleeps until the earliest pending deadline (or a new call), never spins.
void MpiSlackDriver::timer_loop() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    std::uint64_t next = 0;
    for (const Slot& s : slots_)
      if (s.deadline && (!next || s.deadline < next)) next = s.deadline;
    if (!next) {
      cv_.wait(lock);
    } else {
      const std::uint64_t now = core::now_ns();
      if (now < next) cv_.wait_for(lock, std::chrono::nanoseconds(next - now));
    }
    fire_due(core::now_ns());
  }
}

void MpiSlackDriver::end() {
  {
    std::lock_guard guard(mu_);
    stop_ = true;
    for (std::size_t w = 0; w < slots_.size(); ++w) restore(int(w));
    slow_ns_ = 0;
    for (const Slot& s : slots_) slow_ns_ += std::uint64_t(s.slack.stats().slow_s * 1e9);
  }
  cv_.notify_all();
  if (timer_.joinable()) timer_.join();
}

void MpiSlackDriver::report(std::ostream& os) const {
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "mpi-slack: %llu blocking call(s) watched, %llu outlasted %.0f us and ran their "
                "core at fmin for %.3f s in all\n",
                static_cast<unsigned long long>(calls_),
                static_cast<unsigned long long>(slowed_calls_), opt_.slack_s * 1e6,
                double(slow_ns_) * 1e-9);
  os << buf;
}

}  // namespace joule::control
