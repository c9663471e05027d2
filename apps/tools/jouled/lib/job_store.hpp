// Per-job energy records, kept by jouled in SQLite (Debian's libsqlite3).
// A job is every lease that carries the same job id (a Slurm job's ranks);
// a lease without one is its own job ("local-<n>"). The record is written
// when the job's last lease ends (or at `job-end`), once: a later write of
// the same job id and start replaces it, so a restart never duplicates.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace joule::service {

struct JobRecord {
  std::string job;         // job id: Slurm's, or "local-<n>"
  std::string job_source;  // cgroup, client, none
  std::uint32_t uid = 0;
  std::string user;
  std::vector<int> cpus;          // every CPU any of its leases held
  std::int64_t start_unix_s = 0;  // first lease start (wall clock)
  double duration_s = 0;          // first lease start to last lease end
  double energy_j = 0;            // RAPL energy of its packages while it ran
  std::string energy_scope;       // package (alone on them), node (shared), none (no meter)
  double avg_khz = 0;             // time-weighted over its CPUs; 0 if never set
  // CPU-seconds at each frequency (kHz) the service set on its CPUs,
  // ascending kHz; time before the first change counts at the original.
  std::vector<std::pair<std::uint32_t, double>> pstate_s;
};

struct JobQuery {
  std::optional<std::uint32_t> uid;  // only this user's jobs (non-root callers)
  std::optional<std::string> job;
  std::optional<std::string> user;
  int limit = 100;  // newest first
};

class JobStore {
 public:
  virtual ~JobStore() = default;
  // Opens (creating, mode 0600) the database at `path`; nullptr with the
  // reason in *why. A database written by a newer schema is refused.
  static std::unique_ptr<JobStore> open(const std::string& path, std::string* why);
  // Inserts or replaces (same job and start); false with *why on failure.
  virtual bool put(const JobRecord& rec, std::string* why) = 0;
  virtual std::vector<JobRecord> query(const JobQuery& q, std::string* why) const = 0;
};

// One record as the `jobs` protocol answer and `joule-ctl jobs` print it:
// "job=ID user=NAME uid=N cpus=LIST start=UNIX_S duration_s=S energy_j=J
// energy_scope=... avg_khz=K pstate_s=K:S,...".
std::string format_record(const JobRecord& rec);

}  // namespace joule::service
