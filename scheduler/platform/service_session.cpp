// A process's lease with jouled (service_session.hpp).
#include "service_session.hpp"

#include <stdexcept>

#include "log.hpp"
#include "text.hpp"

namespace joule::platform::service_client {
namespace {

// A refused reconnect waits this long before the next try, so a dead
// service costs one connect per second at most, whatever the policy asks.
constexpr auto kReconnectGap = std::chrono::seconds(1);

}  // namespace

std::string describe_error(const std::string& verb, const Reply& reply) {
  std::string out = verb + ": " + (reply.error_code().empty() ? "error" : reply.error_code());
  const std::string msg = reply.error_message();
  return msg.empty() ? out : out + " (" + msg + ")";
}

std::shared_ptr<Session> Session::open(const std::string& socket, const std::string& job,
                                       std::string* why) {
  std::shared_ptr<Session> s(new Session(socket, job));
  std::lock_guard guard(s->mu_);
  if (!s->connect_locked(why)) return nullptr;
  return s;
}

bool Session::connect_locked(std::string* why) {
  last_try_ = std::chrono::steady_clock::now();
  client_ = Client::connect(socket_, kCallTimeoutMs, why);
  if (!client_) return false;
  Line hello("hello");
  hello.add("version", kProtocolVersion);
  if (!job_.empty()) hello.add("job", job_);
  auto reply = client_->call(hello, why);
  if (reply && reply->ok()) {
    hello_ = reply->final;
    epoch_.fetch_add(1, std::memory_order_acq_rel);
    return true;
  }
  if (reply && why) {
    *why = reply->error_code() == kErrDenied
               ? "jouled at " + socket_ + " refused this user (" + reply->error_message() + ")"
               : "jouled at " + socket_ + " answered hello with " + describe_error("hello", *reply);
  }
  client_.reset();
  return false;
}

std::optional<Reply> Session::call(const Line& request, std::string* why) {
  std::lock_guard guard(mu_);
  if (released_) {
    if (why) *why = "the lease was released";
    return std::nullopt;
  }
  if (!client_ || !client_->connected()) {
    if (std::chrono::steady_clock::now() - last_try_ < kReconnectGap) {
      if (why) *why = "the connection to jouled at " + socket_ + " is broken";
      return std::nullopt;
    }
    std::string reason;
    if (!connect_locked(&reason)) {
      if (why) *why = "reconnecting to jouled: " + reason;
      return std::nullopt;
    }
  }
  auto reply = client_->call(request, why);
  if (!reply) {
    // The request failed with the connection: one warning for the run,
    // then failed changes are only counted by their callers. The service
    // ends a lease whose connection breaks: what this process set is gone.
    last_try_ = std::chrono::steady_clock::now();
    epoch_.fetch_add(1, std::memory_order_acq_rel);
    core::warn_once("service-broken", "service: lost jouled at " + socket_ + " (" +
                                          (why ? *why : std::string("no answer")) +
                                          "); changes fail until it answers again");
  }
  return reply;
}

bool Session::release(std::string* why) {
  std::lock_guard guard(mu_);
  if (released_) return true;
  released_ = true;
  if (!client_ || !client_->connected()) return true;  // the service ended the lease itself
  auto reply = client_->call(Line("release"), why);
  client_.reset();
  if (reply && !reply->ok() && why) *why = describe_error("release", *reply);
  return reply && reply->ok();
}

std::vector<int> Session::cpus() const {
  try {
    return core::parse_cpu_list(hello_.get_or("cpus", ""));
  } catch (const std::invalid_argument&) {
    return {};
  }
}

bool Session::grants(const std::string& control) const {
  const std::string list = "," + hello_.get_or("controls", "") + ",";
  return list.find("," + control + ",") != std::string::npos;
}

}  // namespace joule::platform::service_client
