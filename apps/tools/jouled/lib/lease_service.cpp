#include "lease_service.hpp"

#include <pwd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "peer_scope.hpp"
#include "text.hpp"

namespace joule::service {

namespace ps = platform::service;
using ps::error_line;
using ps::Line;

namespace {

std::string user_name(uid_t uid) {
  passwd pw{}, *out = nullptr;
  char buf[1024];
  if (::getpwuid_r(uid, &pw, buf, sizeof buf, &out) == 0 && out) return out->pw_name;
  return std::to_string(uid);
}

std::string read_real(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string controls_text(const LeaseGrant& g) {
  std::string s = g.frequency ? "frequency" : "";
  if (g.energy) s += s.empty() ? "energy" : ",energy";
  return s.empty() ? "none" : s;
}

}  // namespace

LeaseService::LeaseService(DomainTable& domains, StateStore& store, const AuditLog& audit,
                           JobBook& jobs, ServiceOptions options, GrantSource grants)
    : domains_(domains),
      store_(store),
      audit_(audit),
      jobs_(jobs),
      options_(std::move(options)),
      grants_(std::move(grants)) {}

LeaseService::Lease* LeaseService::lease_of_conn(int conn) {
  for (auto& [id, l] : leases_)
    if (l.conn == conn) return &l;
  return nullptr;
}

const LeaseService::Lease* LeaseService::holder_of(int cpu) const {
  for (const auto& [id, l] : leases_)
    if (l.held.count(cpu)) return &l;
  return nullptr;
}

std::vector<Line> LeaseService::handle(int conn, const Peer& peer, const Line& req) {
  const std::string& v = req.verb();
  if (v == "hello") return hello(conn, peer, req);
  if (v == "jobs") return jobs(peer, req);
  if (v == "job-end") return job_end(peer, req);
  if (v == "status") return status(peer);
  if (v != "domains" && v != "set" && v != "energy" && v != "release")
    return {error_line(ps::kErrBadRequest,
                       "unknown verb (allowed: hello, domains, set, energy, release, jobs, "
                       "job-end, status)")};
  Lease* l = lease_of_conn(conn);
  if (!l) return {error_line(ps::kErrState, "say hello first (or the lease has ended)")};
  if (v == "domains") return domains(*l);
  if (v == "set") return set(*l, req);
  if (v == "energy") return energy(*l);
  return release(*l);
}

bool LeaseService::watch_pid(Lease& l) {
  const int fd = int(::syscall(SYS_pidfd_open, l.pid, 0));
  if (fd < 0) return false;
  // Opened after the start time was read: if it still matches, the pidfd
  // is that process and not a later one with the same pid.
  if (platform::process_start_time(l.pid) != l.start_time) {
    ::close(fd);
    return false;
  }
  l.pidfd = fd;
  if (watch) watch(l.id, fd);
  return true;
}

std::vector<Line> LeaseService::hello(int conn, const Peer& peer, const Line& req) {
  if (lease_of_conn(conn)) return {error_line(ps::kErrState, "this connection already said hello")};
  auto version = req.get_u64("version");
  if (!version) return {error_line(ps::kErrBadRequest, "hello needs version=1")};
  if (*version != std::uint64_t(ps::kProtocolVersion))
    return {error_line(ps::kErrVersion, "this service speaks version 1")};
  const auto grant = grants_ ? grants_(peer.uid, peer.gid) : std::nullopt;
  const std::string user = user_name(peer.uid);
  if (!grant)
    return {error_line(ps::kErrDenied, "the access file grants user " + user + " nothing")};
  const unsigned long long start = platform::process_start_time(peer.pid);
  // A reconnect of a process whose lease outlived it (adopted at start).
  for (auto& [id, old] : leases_)
    if (old.pid == peer.pid && old.start_time == start && old.conn < 0) old.conn = conn;
  Lease* l = lease_of_conn(conn);
  if (!l) {
    Lease fresh;
    fresh.id = next_id_++;
    fresh.pid = peer.pid;
    fresh.start_time = start;
    fresh.uid = peer.uid;
    fresh.gid = peer.gid;
    fresh.user = user;
    fresh.conn = conn;
    fresh.job = cgroup_job_of(peer.pid);
    fresh.job_source = "cgroup";
    const std::string* claimed = req.get("job");
    if (fresh.job.empty() && claimed && !claimed->empty() && claimed->size() <= 64) {
      fresh.job = *claimed;
      fresh.job_source = "client";
    }
    if (fresh.job.empty()) {
      fresh.job = "local-" + std::to_string(next_local_++);
      fresh.job_source = "none";
    }
    l = &leases_.emplace(fresh.id, std::move(fresh)).first->second;
    if (!watch_pid(*l)) {
      leases_.erase(l->id);
      return {error_line(ps::kErrInternal, "cannot watch the calling process")};
    }
    start_job(*l);
  }
  l->grant = *grant;
  l->scope = scope_of(l->pid, options_.cgroup_root);
  Line ok("ok");
  ok.add("version", ps::kProtocolVersion).add("user", l->user).add("uid", std::uint64_t(l->uid));
  ok.add("controls", controls_text(l->grant)).add("cpus", core::format_cpu_list(l->scope));
  ok.add("min_khz", std::uint64_t(l->grant.min_khz))
      .add("max_khz", std::uint64_t(l->grant.max_khz));
  ok.add("job", l->job).add("job_source", l->job_source);
  return {ok};
}

void LeaseService::start_job(Lease& l) {
  std::map<int, std::uint32_t> khz;
  for (int cpu : scope_of(l.pid, options_.cgroup_root))
    if (const Domain* d = domains_.of_cpu(cpu))
      khz[cpu] = domains_.current_khz(*d).value_or(d->table.back());
  jobs_.lease_started(l.job, l.job_source, l.uid, l.user, khz);
}

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

std::vector<Line> LeaseService::set(Lease& l, const Line& req) {
  if (!l.grant.frequency)
    return {error_line(ps::kErrDenied, "the access file does not grant the frequency control")};
  auto cpu = req.get_u64("cpu");
  auto khz = req.get_u64("khz");
  if (!cpu || !khz || *cpu > 65535 || *khz > 100000000)
    return {error_line(ps::kErrBadRequest, "set needs cpu=N khz=K")};
  const int c = int(*cpu);
  // The affinity may have grown since hello: recompute before refusing.
  if (!std::binary_search(l.scope.begin(), l.scope.end(), c))
    l.scope = scope_of(l.pid, options_.cgroup_root);
  if (!std::binary_search(l.scope.begin(), l.scope.end(), c))
    return {error_line(ps::kErrScope, "cpu " + std::to_string(c) +
                                          " is outside this process's cpuset and affinity (" +
                                          core::format_cpu_list(l.scope) + ")")};
  const Domain* d = domains_.of_cpu(c);
  if (!d)
    return {error_line(ps::kErrScope, "cpu " + std::to_string(c) + " has no controllable policy")};
  if (const Lease* h = holder_of(c); h && h->id != l.id)
    return {error_line(ps::kErrScope, "cpu " + std::to_string(c) + " is held by pid " +
                                          std::to_string(h->pid) + " (user " + h->user + ")")};
  const std::uint32_t hi = l.grant.max_khz;
  if (*khz < l.grant.min_khz || (hi != 0 && *khz > hi))
    return {error_line(ps::kErrRange, "khz=" + std::to_string(*khz) + " is outside the grant (" +
                                          std::to_string(l.grant.min_khz) + " to " +
                                          (hi ? std::to_string(hi) : "any") + ")")};
  auto snapped = snap_pstate(d->table, std::uint32_t(*khz), l.grant.min_khz, hi);
  if (!snapped)
    return {error_line(ps::kErrRange, "no P-state of this domain lies within the grant")};
  // The lease takes the named CPU and every free CPU of the domain in its scope.
  std::map<int, std::uint32_t> before = l.held;
  for (int other : d->cpus)
    if (other == c || (std::binary_search(l.scope.begin(), l.scope.end(), other) &&
                       (!holder_of(other) || holder_of(other)->id == l.id)))
      l.held[other] = *snapped;
  persist();  // before the write: a crash now still knows who held what
  std::string why;
  auto running = apply(*d, AuditWho{l.uid, l.user, l.pid, l.job}, &why);
  if (!running) {
    l.held = before;
    apply(*d, AuditWho{l.uid, l.user, l.pid, l.job}, &why);
    persist();
    return {error_line(ps::kErrInternal, why)};
  }
  const auto effective = domains_.current_khz(*d);
  Line ok("ok");
  ok.add("domain", d->id)
      .add("requested", std::uint64_t(*snapped))
      .add("khz", std::uint64_t(*running));
  ok.add("effective", effective ? std::to_string(*effective) : "unknown");
  ok.add("in_effect",
         effective ? (within_step(d->table, *running, *effective) ? "1" : "0") : "unknown");
  return {ok};
}

std::optional<std::uint32_t> LeaseService::apply(const Domain& d, const AuditWho& who,
                                                 std::string* why) {
  std::uint32_t target = 0;
  bool unheld = false;
  for (int c : d.cpus) {
    const Lease* h = holder_of(c);
    if (h)
      target = std::max(target, h->held.at(c));
    else
      unheld = true;
  }
  auto original_of = [&](const std::string& f) { return store_.original(f); };
  const std::uint32_t ceiling = domains_.original_ceiling(d, original_of);
  // protect: a CPU no lease holds asks for its original, which a holder
  // may only exceed, never undercut.
  if (target == 0 || (options_.protect_shared && unheld && target <= ceiling)) {
    restore_domain(d, who);
    for (int c : d.cpus) jobs_.cpu_khz(c, ceiling);
    return ceiling;
  }
  std::vector<FileChange> changes;
  auto save = [&](const std::string& real, const std::string& content, std::string* w) {
    return store_.save(real, content, w);
  };
  const bool ok = domains_.set(d, target, save, &changes, why);
  for (const auto& ch : changes) audit_.change(who, d, ch);
  if (!ok) return std::nullopt;
  for (int c : d.cpus) jobs_.cpu_khz(c, target);
  return target;
}

void LeaseService::restore_domain(const Domain& d, const AuditWho& who) {
  const auto files = domains_.files_of(d);
  const auto saved = store_.originals_of(files);
  if (saved.empty()) return;
  std::vector<std::string> before;
  for (const auto& f : saved) before.push_back(read_real(f.path));
  std::vector<std::string> errors;
  platform::restore_files(saved, &errors);
  for (std::size_t i = 0; i < saved.size(); ++i) {
    const std::string now = read_real(saved[i].path);
    if (now != before[i])
      audit_.change(who, d, FileChange{saved[i].path, trim(before[i]), trim(now)});
  }
  for (const auto& e : errors) audit_.note("restore failed: " + e);
  if (!errors.empty()) return;  // kept: the next start tries again
  std::vector<std::string> paths;
  for (const auto& f : saved) paths.push_back(f.path);
  store_.drop(paths);
  std::string why;
  if (!store_.write_originals(&why)) audit_.note("state file: " + why);
}

std::optional<JobRecord> LeaseService::end_lease(int id, const std::string& why) {
  auto it = leases_.find(id);
  if (it == leases_.end()) return std::nullopt;
  Lease l = std::move(it->second);
  leases_.erase(it);
  if (l.pidfd >= 0) {
    if (unwatch) unwatch(l.pidfd);
    ::close(l.pidfd);
  }
  std::vector<const Domain*> touched;
  for (auto [cpu, khz] : l.held)
    if (const Domain* d = domains_.of_cpu(cpu))
      if (std::find(touched.begin(), touched.end(), d) == touched.end()) touched.push_back(d);
  std::string err;
  for (const Domain* d : touched)
    if (!apply(*d, AuditWho{l.uid, l.user, l.pid, l.job}, &err))
      audit_.note("domain " + std::to_string(d->id) + " after lease end: " + err);
  persist();
  bool others = false;
  for (const auto& [oid, o] : leases_) others = others || o.job == l.job;
  auto rec = jobs_.lease_ended(l.job, !others);
  audit_.note("lease " + std::to_string(l.id) + " pid=" + std::to_string(l.pid) + " job=" + l.job +
              " ended: " + why);
  return rec;
}

std::vector<Line> LeaseService::release(Lease& l) {
  const auto rec = end_lease(l.id, "released");
  Line ok("ok");
  ok.add("energy_j", rec ? rec->energy_j : 0.0);
  return {ok};
}

void LeaseService::connection_closed(int conn) {
  if (Lease* l = lease_of_conn(conn)) end_lease(l->id, "connection closed");
}

void LeaseService::process_exited(int lease) { end_lease(lease, "the process exited"); }

void LeaseService::end_all(const std::string& why) {
  while (!leases_.empty()) end_lease(leases_.begin()->first, why);
  // Anything still saved (a domain no lease held any more) goes back too.
  for (const auto& d : domains_.domains()) restore_domain(d, AuditWho{0, "root", ::getpid(), ""});
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
  ok.add("zones", std::uint64_t(out.size())).add("shared", jobs_.shares_packages(l.job) ? 1 : 0);
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
    l.scope = scope_of(l.pid, options_.cgroup_root);
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
