// The service meter (meter.hpp): RAPL energy read by jouled for a job that
// may not read energy_uj itself. The service's zone counters are cumulative
// joules since it started, wrap-around already handled, so start() keeps
// them as the baseline and sample() reports the increase.
#include <algorithm>
#include <map>

#include "log.hpp"
#include "meter.hpp"
#include "service_session.hpp"

namespace joule::platform {
namespace {

using service_client::Line;
using service_client::Session;

class ServiceMeter final : public EnergyMeter {
 public:
  explicit ServiceMeter(std::shared_ptr<Session> s) : session_(std::move(s)) {}
  const char* name() const override { return "service"; }
  std::string note() const override {
    std::lock_guard guard(mu_);
    return shared_ ? "node-level: other jobs share the packages" : "";
  }

  // One `energy` call: zone -> cumulative joules. False if none came.
  bool read(std::map<std::string, double>* now, std::string* why) {
    auto reply = session_->call(Line("energy"), why);
    if (!reply) return false;
    if (!reply->ok()) {
      if (why) *why = service_client::describe_error("energy", *reply);
      return false;
    }
    std::lock_guard guard(mu_);
    shared_ = shared_ || reply->final.get_or("shared", "0") == "1";
    for (const auto& l : reply->data) {
      const std::string zone = l.get_or("zone", "");
      const auto j = l.get_double("joules");
      if (zone.empty() || !j) continue;
      (*now)[zone] = *j;
      if (index_of(zone) < 0) add_zone(l, zone);
    }
    if (now->empty() && why) *why = "the service reads no RAPL zone";
    return !now->empty();
  }

  void start() override {
    std::map<std::string, double> now;
    std::string why;
    read(&now, &why);
    std::lock_guard guard(mu_);
    base_ = now;
    for (auto& d : domains_) d.joules = 0;
  }

  void sample() override {
    std::map<std::string, double> now;
    std::string why;
    if (!read(&now, &why)) return;  // keeps the last totals; the session warned
    std::lock_guard guard(mu_);
    for (const auto& [zone, j] : now) {
      auto [it, fresh] = base_.try_emplace(zone, j);  // a zone seen late counts from here
      domains_[std::size_t(index_of(zone))].joules = std::max(0.0, j - it->second);
    }
  }

 private:
  int index_of(const std::string& zone) const {
    for (std::size_t i = 0; i < domains_.size(); ++i)
      if (domains_[i].name == zone) return int(i);
    return -1;
  }
  void add_zone(const Line& l, const std::string& zone) {
    const auto chip = l.get_u64("chip");
    domains_.push_back({zone, l.get_or("kind", "other"), chip ? int(*chip) : -1, 0.0});
  }

  std::shared_ptr<Session> session_;
  std::map<std::string, double> base_;
  bool shared_ = false;
};

}  // namespace

std::unique_ptr<EnergyMeter> make_service_meter(std::shared_ptr<service_client::Session> session,
                                                std::string* why) {
  if (!session->grants("energy")) {
    if (why) *why = "jouled at " + session->socket() + " grants this user no energy readings";
    return nullptr;
  }
  auto m = std::make_unique<ServiceMeter>(std::move(session));
  std::map<std::string, double> now;
  if (!m->read(&now, why)) {
    if (why) *why = "jouled: " + *why;
    return nullptr;
  }
  return m;
}

}  // namespace joule::platform
