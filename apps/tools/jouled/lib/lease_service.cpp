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

namespace ps = platform::service_client;
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
    fresh.job = cgroup_job_of(peer.pid, options_.proc_root);
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
  l->scope = scope_of(l->pid, options_.cgroup_root, options_.proc_root);
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
  for (int cpu : scope_of(l.pid, options_.cgroup_root, options_.proc_root))
    if (const Domain* d = domains_.of_cpu(cpu))
      khz[cpu] = domains_.current_khz(*d).value_or(d->table.back());
  jobs_.lease_started(l.key(), l.user, khz);
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
    l.scope = scope_of(l.pid, options_.cgroup_root, options_.proc_root);
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
  // Before the write, so that a crash now still knows who held what. Only a
  // change of the CPUs held needs it: after a restart the originals and the
  // holders decide what is put back, and a request rewritten on every
  // change cost an fsync and a rename per `set` (most of its ~0.6 ms).
  const bool cpus_changed =
      !std::equal(before.begin(), before.end(), l.held.begin(), l.held.end(),
                  [](const auto& a, const auto& b) { return a.first == b.first; });
  if (cpus_changed) persist();
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
  for (const auto& [oid, o] : leases_) others = others || o.key() == l.key();
  auto rec = jobs_.lease_ended(l.key(), !others);
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

}  // namespace joule::service
