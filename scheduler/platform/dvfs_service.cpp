// The service DVFS backend (dvfs_service.hpp).
#include "dvfs_service.hpp"

#include <algorithm>
#include <stdexcept>

#include "dvfs_cpufreq.hpp"
#include "log.hpp"
#include "text.hpp"

namespace joule::platform {
namespace {

using service_client::Line;
using service_client::Reply;
using service_client::Session;

struct ServiceDomain {
  std::vector<int> cpus, mine;
  bool shared = false;
  std::vector<std::uint32_t> table;
  std::uint32_t khz = 0;
};

// One `data domain=...` line; false when a field is missing or malformed.
bool parse_domain(const Line& l, ServiceDomain* out) {
  try {
    out->cpus = core::parse_cpu_list(l.get_or("cpus", ""));
    out->mine = core::parse_cpu_list(l.get_or("mine", ""));
  } catch (const std::invalid_argument&) {
    return false;
  }
  std::string list = l.get_or("pstates", "");
  std::replace(list.begin(), list.end(), ',', ' ');
  out->table = parse_frequency_list(list);
  out->shared = l.get_or("shared", "0") == "1";
  out->khz = std::uint32_t(l.get_u64("khz").value_or(0));
  return !out->mine.empty() && !out->table.empty();
}

class ServiceDvfs final : public Dvfs {
 public:
  explicit ServiceDvfs(std::shared_ptr<Session> s) : session_(std::move(s)) {}
  const char* name() const override { return "service"; }
  const Session& session() const noexcept { return *session_; }

  void add(const ServiceDomain& d) {
    const int lvl = d.khz ? nearest_level(d.table, d.khz) : int(d.table.size()) - 1;
    add_domain(d.mine, d.table, lvl);
    first_cpu_.push_back(d.mine.front());
    applied_epoch_.push_back(session_->epoch());
    widest_ = std::max(widest_, d.cpus.size());
    std::lock_guard guard(notes_mu_);
    notes_.push_back(d.shared ? "shared with CPUs outside this job" : "");
    base_notes_.push_back(notes_.back());
  }
  // The kernel's domain, not the job's part of it, says whether one CPU's
  // change moves others (add_domain only sees the job's CPUs).
  void finish() { caps_ = kCapSet | kCapReal | (widest_ > 1 ? kCapPerChip : kCapPerCore); }

  void restore() override {
    std::string why;
    if (!session_->release(&why) && !why.empty())
      core::warn_once("service-release", "service: release: " + why);
  }

  std::string domain_note(int d) const override {
    std::lock_guard guard(notes_mu_);
    return notes_[std::size_t(d)];
  }

 protected:
  bool apply(int d, std::uint32_t khz) override {
    Line req("set");
    req.add("cpu", first_cpu_[std::size_t(d)]).add("khz", std::uint64_t(khz));
    std::string why;
    auto reply = session_->call(req, &why);
    if (!reply) return false;  // the session warned once
    if (!reply->ok()) {
      core::warn_once(
          "service-set:" + reply->error_code(),
          "service: jouled refused a change: " + service_client::describe_error("set", *reply));
      return false;
    }
    note_effect(d, *reply);
    applied_epoch_[std::size_t(d)] = session_->epoch();
    return true;
  }

  // A reconnect is a new lease: the service put the old lease's CPUs back,
  // so the level this process remembers is no longer the domain's.
  bool level_current(int d) const override {
    return applied_epoch_[std::size_t(d)] == session_->epoch();
  }

 private:
  // in_effect=0: the service wrote the change, but scaling_cur_freq reads
  // something else (a firmware limit, or another job's higher request).
  void note_effect(int d, const Reply& reply) {
    std::string note = base_notes_[std::size_t(d)];
    if (reply.final.get_or("in_effect", "unknown") == "0")
      note = (note.empty() ? "" : note + "; ") +
             "accepted but not in effect: scaling_cur_freq reads " +
             reply.final.get_or("effective", "?");
    std::lock_guard guard(notes_mu_);
    // A note stays once seen: the report is about the whole run.
    if (note != base_notes_[std::size_t(d)]) notes_[std::size_t(d)] = note;
  }

  std::shared_ptr<Session> session_;
  std::vector<int> first_cpu_;
  std::vector<std::uint64_t> applied_epoch_;  // session epoch of each domain's level; domain lock
  std::size_t widest_ = 1;
  mutable std::mutex notes_mu_;
  std::vector<std::string> notes_, base_notes_;
};

}  // namespace

std::unique_ptr<Dvfs> make_service_dvfs(std::shared_ptr<Session> session, std::string* why) {
  const std::string where = "jouled at " + session->socket();
  if (!session->grants("frequency")) {
    if (why) *why = where + " grants this user no frequency control";
    return nullptr;
  }
  std::string reason;
  auto reply = session->call(Line("domains"), &reason);
  if (!reply || !reply->ok()) {
    if (why)
      *why = where + ": " + (reply ? service_client::describe_error("domains", *reply) : reason);
    return nullptr;
  }
  auto dvfs = std::make_unique<ServiceDvfs>(std::move(session));
  for (const auto& line : reply->data) {
    ServiceDomain d;
    if (parse_domain(line, &d)) dvfs->add(d);
  }
  if (dvfs->num_domains() == 0) {
    if (why) *why = where + " offers no frequency domain with this job's CPUs";
    return nullptr;
  }
  dvfs->finish();
  return dvfs;
}

std::unique_ptr<Dvfs> make_service_dvfs(const std::string& socket, const std::string& job,
                                        std::string* why) {
  auto session = Session::open(socket, job, why);
  return session ? make_service_dvfs(std::move(session), why) : nullptr;
}

std::string describe_service_dvfs(const Dvfs& dvfs, const service_client::Session& session) {
  std::vector<int> cpus;
  for (int d = 0; d < dvfs.num_domains(); ++d)
    for (int c : dvfs.domain_cpus(d)) cpus.push_back(c);
  std::sort(cpus.begin(), cpus.end());
  return "jouled at " + session.socket() + ", CPUs " + core::format_cpu_list(cpus) + ", " +
         std::to_string(dvfs.num_domains()) + " domain(s)";
}

}  // namespace joule::platform
