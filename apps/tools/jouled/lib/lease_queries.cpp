// The requests that read: domains, energy, jobs, status, and root's
// job-end (lease_service.hpp); has_lease for the server's idle check.
#include "lease_service.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "peer_scope.hpp"
#include "text.hpp"

namespace joule::service {

namespace ps = platform::service_client;
using ps::error_line;
using ps::Line;

std::vector<Line> LeaseService::domains(const Lease& l) {
  std::vector<Line> out;
  for (const auto& d : domains_.domains()) {
    std::vector<int> mine;
    for (int c : d.cpus)
      if (std::binary_search(l.scope.begin(), l.scope.end(), c)) mine.push_back(c);
    if (mine.empty()) continue;
    std::string pstates;
    for (auto f : d.table)
      if (f >= l.grant.min_khz && (l.grant.max_khz == 0 || f <= l.grant.max_khz))
        pstates += (pstates.empty() ? "" : ",") + std::to_string(f);
    Line data("data");
    data.add("domain", d.id).add("cpus", core::format_cpu_list(d.cpus));
    data.add("mine", core::format_cpu_list(mine))
        .add("shared", mine.size() < d.cpus.size() ? 1 : 0);
    data.add("pstates", pstates.empty() ? "-" : pstates);
    data.add("khz", std::uint64_t(domains_.current_khz(d).value_or(0)));
    out.push_back(std::move(data));
  }
  Line ok("ok");
  ok.add("count", std::uint64_t(out.size()));
  out.push_back(std::move(ok));
  return out;
}

std::vector<Line> LeaseService::energy(const Lease& l) {
  if (!l.grant.energy)
    return {error_line(ps::kErrDenied, "the access file does not grant the energy control")};
  if (!jobs_.energy_available())
    return {error_line(ps::kErrInternal, "no energy meter: " + jobs_.energy_why())};
  std::vector<Line> out;
  for (const auto& z : jobs_.energy_totals()) {
    Line data("data");
    data.add("zone", z.name).add("kind", z.kind).add("chip", z.chip).add("joules", z.joules);
    out.push_back(std::move(data));
  }
  Line ok("ok");
  ok.add("zones", std::uint64_t(out.size())).add("shared", jobs_.shares_packages(l.key()) ? 1 : 0);
  out.push_back(std::move(ok));
  return out;
}

std::vector<Line> LeaseService::jobs(const Peer& peer, const Line& req) {
  if (!jobs_.has_store()) return {error_line(ps::kErrInternal, "no job database")};
  JobQuery q;
  if (peer.uid != 0) q.uid = peer.uid;
  if (const auto* j = req.get("job")) q.job = *j;
  if (const auto* u = req.get("user")) q.user = *u;
  if (auto n = req.get_u64("limit"))
    q.limit = int(std::clamp<std::uint64_t>(*n, 1, std::uint64_t(kMaxLimit)));
  std::string why;
  std::vector<Line> out;
  for (const auto& fields : jobs_.query(q, &why)) {
    std::string err;
    if (auto l = ps::parse_line("data " + fields, &err)) out.push_back(std::move(*l));
  }
  if (!why.empty()) return {error_line(ps::kErrInternal, why)};
  Line ok("ok");
  ok.add("count", std::uint64_t(out.size()));
  out.push_back(std::move(ok));
  return out;
}

std::vector<Line> LeaseService::job_end(const Peer& peer, const Line& req) {
  if (peer.uid != 0) return {error_line(ps::kErrDenied, "job-end is for root (the Slurm plugin)")};
  const std::string* job = req.get("job");
  if (!job || job->empty()) return {error_line(ps::kErrBadRequest, "job-end needs job=ID")};
  std::vector<int> ids;
  for (const auto& [id, l] : leases_)
    if (l.job == *job) ids.push_back(id);
  for (int id : ids) end_lease(id, "job-end");
  Line ok("ok");
  ok.add("leases", std::uint64_t(ids.size()));
  return {ok};
}

bool LeaseService::has_lease(int conn) const {
  for (const auto& [id, l] : leases_)
    if (l.conn == conn) return true;
  return false;
}

std::vector<Line> LeaseService::status(const Peer& peer) {
  if (peer.uid != 0) return {error_line(ps::kErrDenied, "status is for root")};
  std::vector<Line> out;
  for (const auto& [id, l] : leases_) {
    std::vector<int> cpus;
    for (auto [c, k] : l.held) cpus.push_back(c);
    Line data("data");
    data.add("lease", id).add("pid", l.pid).add("uid", std::uint64_t(l.uid)).add("user", l.user);
    data.add("job", l.job).add("cpus", cpus.empty() ? "-" : core::format_cpu_list(cpus));
    out.push_back(std::move(data));
  }
  Line ok("ok");
  ok.add("count", std::uint64_t(out.size()));
  out.push_back(std::move(ok));
  return out;
}

}  // namespace joule::service
