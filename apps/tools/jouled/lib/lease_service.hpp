// The heart of jouled: leases and the requests that act on them, apart
// from sockets (server.hpp owns those). A lease is one client process
// (pid + start time, so a reused pid is not the same client) with the
// grant the access file gives its uid, the CPUs it may touch, and the
// frequencies it asked for on the CPUs it holds. Each CPU has at most one
// holder; a domain runs at the highest request among its holders (see
// docs/service.md, "Shared domains").
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "audit_log.hpp"
#include "domain_table.hpp"
#include "job_book.hpp"
#include "service_protocol.hpp"
#include "state_store.hpp"

namespace joule::service {

struct Peer {
  int pid = 0;
  uid_t uid = 0;
  gid_t gid = 0;
};

struct LeaseGrant {
  bool frequency = false, energy = false;
  std::uint32_t min_khz = 0, max_khz = 0;  // 0 = no bound
};
// The access file's answer for a user; nullopt: nothing granted.
using GrantSource = std::function<std::optional<LeaseGrant>(uid_t, gid_t)>;

struct ServiceOptions {
  std::string cgroup_root = "/sys/fs/cgroup";
  std::string proc_root = "/proc";  // where PID/cgroup is read (tests: a fake tree)
  bool protect_shared = true;       // --shared-domains protect (else owners)
};

class LeaseService {
 public:
  LeaseService(DomainTable& domains, StateStore& store, const AuditLog& audit, JobBook& jobs,
               ServiceOptions options, GrantSource grants);

  // Told when a lease needs its process watched (a pidfd to poll) or not.
  std::function<void(int lease, int pidfd)> watch;
  std::function<void(int pidfd)> unwatch;

  // Answers one request of connection `conn` (its data lines, then the final one).
  std::vector<platform::service_client::Line> handle(int conn, const Peer& peer,
                                                     const platform::service_client::Line& req);
  void connection_closed(int conn);
  void process_exited(int lease);
  // SIGTERM: every lease ends, every domain goes back.
  void end_all(const std::string& why);
  // At start: originals whose owners are gone are put back, live ones adopted.
  void recover();
  void set_grants(GrantSource grants) { grants_ = std::move(grants); }
  std::size_t lease_count() const { return leases_.size(); }
  bool has_lease(int conn) const;

 private:
  struct Lease {
    int id = 0, pid = 0, conn = -1, pidfd = -1;
    unsigned long long start_time = 0;
    uid_t uid = 0;
    gid_t gid = 0;
    std::string user, job, job_source;
    LeaseGrant grant;
    JobKey key() const { return JobKey{job, job_source, uid}; }
    std::vector<int> scope;
    std::map<int, std::uint32_t> held;  // CPU -> requested kHz
  };
  using Lines = std::vector<platform::service_client::Line>;

  Lines hello(int conn, const Peer& peer, const platform::service_client::Line& req);
  Lines domains(const Lease& l);
  Lines set(Lease& l, const platform::service_client::Line& req);
  Lines energy(const Lease& l);
  Lines release(Lease& l);
  Lines jobs(const Peer& peer, const platform::service_client::Line& req);
  Lines job_end(const Peer& peer, const platform::service_client::Line& req);
  Lines status(const Peer& peer);

  Lease* lease_of_conn(int conn);
  const Lease* holder_of(int cpu) const;
  std::optional<JobRecord> end_lease(int id, const std::string& why);
  // Puts domain `d` where its holders' requests say; its running kHz.
  std::optional<std::uint32_t> apply(const Domain& d, const AuditWho& who, std::string* why);
  void restore_domain(const Domain& d, const AuditWho& who);
  void persist();
  bool watch_pid(Lease& l);
  void start_job(Lease& l);

  DomainTable& domains_;
  StateStore& store_;
  const AuditLog& audit_;
  JobBook& jobs_;
  ServiceOptions options_;
  GrantSource grants_;
  std::map<int, Lease> leases_;
  int next_id_ = 1, next_local_ = 1;
};

}  // namespace joule::service
