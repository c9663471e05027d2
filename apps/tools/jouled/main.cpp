// jouled: joule's node service (docs/service.md). Changes CPU frequencies
// and reads RAPL energy on behalf of unprivileged joule programs, within
// what the access file grants, and puts everything back when they end.
#include <sys/file.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "access_policy.hpp"
#include "audit_log.hpp"
#include "domain_table.hpp"
#include "job_book.hpp"
#include "lease_service.hpp"
#include "server.hpp"
#include "state_store.hpp"

namespace {

using namespace joule::service;

struct Options {
  bool foreground = false;
  std::string sysfs_root = "/";
  std::string socket = joule::platform::service_client::kDefaultSocket;
  std::string access = "/etc/joule/access.toml";
  std::string state_dir = "/var/lib/joule";
  std::string cgroup_root = "/sys/fs/cgroup";
  std::string proc_root = "/proc";
  std::string db;
  int idle_timeout_s = 30;
  std::string shared = "protect";
};

GrantSource grants_of(std::shared_ptr<const AccessPolicy> policy) {
  return [policy](uid_t uid, gid_t gid) -> std::optional<LeaseGrant> {
    const Grant g = policy->grant_for(uid, gid);
    if (g.controls == 0) return std::nullopt;
    return LeaseGrant{g.allows(kControlFrequency), g.allows(kControlEnergy), g.min_khz, g.max_khz};
  };
}

// One jouled per state folder: a second would save the first's changes
// as originals.
bool lock_state_dir(const std::string& dir) {
  const int fd = ::open((dir + "/jouled.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  return fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) == 0;  // held until exit
}

int serve(const Options& o) {
  std::string why;
  auto policy = AccessPolicy::load(o.access, &why);
  if (!policy) {
    std::fprintf(stderr, "jouled: access file refused: %s\n", why.c_str());
    return 1;
  }
  StateStore store(o.state_dir, o.sysfs_root);
  if (!store.open(&why)) {
    std::fprintf(stderr, "jouled: %s\n", why.c_str());
    return 1;
  }
  if (!lock_state_dir(o.state_dir)) {
    std::fprintf(stderr, "jouled: another jouled uses %s\n", o.state_dir.c_str());
    return 1;
  }
  std::vector<std::string> messages;
  store.load(&messages);
  for (const auto& m : messages) std::fprintf(stderr, "jouled: %s\n", m.c_str());
  joule::platform::Sysfs fs(o.sysfs_root);
  DomainTable domains(fs);
  std::string left_out;
  domains.discover(&left_out);
  std::fprintf(stderr, "jouled: %zu frequency domains%s%s\n", domains.domains().size(),
               left_out.empty() ? "" : "; left out: ", left_out.c_str());
  const std::string db = o.db.empty() ? o.state_dir + "/jobs.db" : o.db;
  messages.clear();
  JobBook jobs(fs, db, &messages);
  for (const auto& m : messages) std::fprintf(stderr, "jouled: %s\n", m.c_str());
  AuditLog audit(o.state_dir + "/audit.log");
  if (!jobs.recovery_note().empty()) audit.note(jobs.recovery_note());
  auto shared_policy = std::make_shared<const AccessPolicy>(std::move(*policy));
  LeaseService leases(domains, store, audit, jobs,
                      ServiceOptions{o.cgroup_root, o.proc_root, o.shared == "protect"},
                      grants_of(shared_policy));
  bool activated = false;
  const int fd = open_listen_socket(o.socket, &activated, &why);
  if (fd < 0) {
    std::fprintf(stderr, "jouled: %s\n", why.c_str());
    return 1;
  }
  // Before recover(): adopted leases need its pidfd watch.
  Server server(fd, leases, jobs, o.idle_timeout_s);
  leases.recover();
  server.reload = [&]() -> std::string {
    std::string err;
    auto fresh = AccessPolicy::load(o.access, &err);
    if (!fresh) return "access file refused, the old one stays: " + err;
    leases.set_grants(grants_of(std::make_shared<const AccessPolicy>(std::move(*fresh))));
    return "access file reloaded";
  };
  std::fprintf(stderr, "jouled: listening on %s\n",
               activated ? "the socket systemd passed" : o.socket.c_str());
  const int rc = server.run();
  if (!activated) ::unlink(o.socket.c_str());
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{
      "jouled: joule's node service (changes CPU frequencies and reads energy for "
      "joule programs; docs/service.md)"};
  app.add_flag("--foreground", o.foreground, "stay in the foreground (the only mode; for systemd)");
  app.add_option("--sysfs-root", o.sysfs_root, "root of the kernel tree (tests: a fake tree)");
  app.add_option("--socket", o.socket, "Unix socket to listen on");
  app.add_option("--access", o.access, "access file (TOML)");
  app.add_option("--state-dir", o.state_dir, "saved originals, leases, audit log, job database");
  app.add_option("--cgroup-root", o.cgroup_root, "cgroup file system (tests: a fake one)");
  app.add_option("--proc-root", o.proc_root,
                 "where /proc/PID/cgroup is read, and so Slurm job ids (tests: a fake tree)");
  app.add_option("--db", o.db, "job database (default STATE_DIR/jobs.db)");
  app.add_option("--idle-timeout", o.idle_timeout_s,
                 "seconds a connection without a lease may stay silent before it is closed "
                 "(1 to 3600; default 30)")
      ->check(CLI::Range(1, 3600));
  app.add_option("--shared-domains", o.shared,
                 "a domain shared with CPUs no job holds: protect (never slower than its "
                 "original) or owners (the holders decide)")
      ->check(CLI::IsMember({"protect", "owners"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  return serve(o);
}
