// One process's lease with jouled (docs/service.md): a connection that has
// said hello, shared by the service DVFS backend and the service meter so
// that a process holds one lease. A broken connection fails the request at
// hand with one warning; the next request reconnects (a new hello, a new
// lease), at most once per second, so a dead service costs no storm of
// connects. After release() the session stays closed.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "service_client.hpp"

namespace joule::platform::service_client {

// Every call's bound, connect included: a stalled service costs this much.
inline constexpr int kCallTimeoutMs = 2000;

class Session {
 public:
  // Connects and says hello (with job=<job> when job is not empty).
  // nullptr with the reason in *why: no socket, no answer, or the service
  // refused (err code=denied: the access file grants this user nothing).
  static std::shared_ptr<Session> open(const std::string& socket, const std::string& job,
                                       std::string* why);

  // Sends `request` on the lease; reconnects first if the connection broke
  // (throttled). nullopt with *why when no answer came.
  std::optional<Reply> call(const Line& request, std::string* why);
  // Ends the lease ("release"): the service puts the CPUs back.
  bool release(std::string* why);

  // Changes when a connection is made or lost: either way the lease that
  // the last changes were made on is over, and the service put its CPUs back.
  std::uint64_t epoch() const noexcept { return epoch_.load(std::memory_order_acquire); }
  const std::string& socket() const noexcept { return socket_; }
  const Line& hello() const noexcept { return hello_; }
  std::vector<int> cpus() const;  // the hello's cpus=LIST
  bool grants(const std::string& control) const;

 private:
  Session(std::string socket, std::string job) : socket_(std::move(socket)), job_(std::move(job)) {}
  bool connect_locked(std::string* why);

  std::mutex mu_;
  std::string socket_, job_;
  std::unique_ptr<Client> client_;
  Line hello_;
  bool released_ = false;
  std::atomic<std::uint64_t> epoch_{0};
  std::chrono::steady_clock::time_point last_try_{};
};

// "jouled at PATH refused user X: MESSAGE" style text for a failed reply.
std::string describe_error(const std::string& verb, const Reply& reply);

}  // namespace joule::platform::service_client
