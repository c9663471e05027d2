// The leases file: written before each change, read back at start to
// adopt live clients and put back what dead ones held (lease_service.hpp).
#include "lease_service.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "peer_scope.hpp"
#include "state_file.hpp"

namespace joule::service {

namespace ps = platform::service_client;
using ps::error_line;
using ps::Line;

void LeaseService::persist() {
  std::vector<Line> lines;
  for (const auto& [id, l] : leases_) {
    if (l.held.empty()) continue;
    std::string held;
    for (auto [c, k] : l.held)
      held += (held.empty() ? "" : ",") + std::to_string(c) + ":" + std::to_string(k);
    Line line("lease");
    line.add("pid", l.pid)
        .add("start", std::uint64_t(l.start_time))
        .add("uid", std::uint64_t(l.uid));
    line.add("gid", std::uint64_t(l.gid)).add("user", l.user).add("job", l.job);
    line.add("job_source", l.job_source).add("held", held);
    lines.push_back(std::move(line));
  }
  std::string why;
  if (!store_.write_leases(lines, &why)) audit_.note("leases file: " + why);
}

namespace {

// "0:1200000,1:1200000" into CPU -> kHz; nullopt on any other text.
std::optional<std::map<int, std::uint32_t>> parse_held(const std::string& text) {
  std::map<int, std::uint32_t> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    unsigned cpu = 0, khz = 0;
    char extra = 0;
    if (std::sscanf(item.c_str(), "%u:%u%c", &cpu, &khz, &extra) != 2 || cpu > 65535 || khz == 0 ||
        khz > 100000000)
      return std::nullopt;
    out[int(cpu)] = khz;
  }
  return out;
}

}  // namespace

void LeaseService::recover() {
  for (const Line& line : store_.loaded_leases()) {
    Lease l;
    auto pid = line.get_u64("pid"), start = line.get_u64("start");
    auto uid = line.get_u64("uid"), gid = line.get_u64("gid");
    auto held = parse_held(line.get_or("held", ""));
    if (!pid || !start || !uid || !gid || !held || *pid == 0 || *pid > 4194304) {
      audit_.note("leases file: a malformed lease line; ignored");
      continue;
    }
    l.pid = int(*pid);
    l.start_time = *start;
    if (!platform::process_alive(l.pid, l.start_time)) continue;  // gone: restored below
    l.id = next_id_++;
    l.uid = uid_t(*uid);
    l.gid = gid_t(*gid);
    l.user = line.get_or("user", std::to_string(l.uid));
    l.job = line.get_or("job", "local-" + std::to_string(next_local_++));
    l.job_source = line.get_or("job_source", "none");
    if (auto g = grants_ ? grants_(l.uid, l.gid) : std::nullopt) l.grant = *g;
    l.held = *held;
    l.scope = scope_of(l.pid, options_.cgroup_root, options_.proc_root);
    Lease& in = leases_.emplace(l.id, std::move(l)).first->second;
    if (!watch_pid(in)) {
      leases_.erase(in.id);
      continue;
    }
    start_job(in);
    audit_.note("adopted the lease of pid " + std::to_string(in.pid) + " (job " + in.job + ")");
  }
  std::string why;
  const AuditWho who{0, "root", ::getpid(), ""};
  for (const auto& d : domains_.domains())
    if (!apply(d, who, &why)) audit_.note("domain " + std::to_string(d.id) + ": " + why);
  // Originals of files no discovered domain covers any more: back as well.
  if (!store_.empty()) {
    std::vector<std::string> all;
    for (const auto& d : domains_.domains())
      for (const auto& f : domains_.files_of(d)) all.push_back(f);
    std::vector<platform::SavedFile> rest;
    for (const auto& f : store_.all())
      if (std::find(all.begin(), all.end(), f.path) == all.end()) rest.push_back(f);
    std::vector<std::string> errors, paths;
    platform::restore_files(rest, &errors);
    for (const auto& e : errors) audit_.note("restore failed: " + e);
    for (const auto& f : rest) paths.push_back(f.path);
    if (errors.empty()) store_.drop(paths);
  }
  persist();
  if (!store_.write_originals(&why)) audit_.note("state file: " + why);
}

}  // namespace joule::service
