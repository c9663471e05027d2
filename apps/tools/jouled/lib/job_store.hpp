// Per-job energy records, kept by jouled in SQLite (Debian's libsqlite3).
// A job is every lease that carries the same job id (a Slurm job's ranks);
// a lease without one is its own job ("local-<n>"); leases of different
// users never share one (job_book.hpp, JobKey). The record is written when
// the job's last lease ends (or at `job-end`). Records are only ever added:
// no write replaces or changes one, whatever its job id and start.
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
  int limit = 100;  // newest first; 1..kMaxLimit
};

inline constexpr int kMaxLimit = 10000;

class JobStore {
 public:
  virtual ~JobStore() = default;
  // Why open() failed: the file is damaged (not an SQLite database, or it
  // fails PRAGMA quick_check), or anything else (modes, a newer schema, ...).
  enum class OpenFailure { damaged, other };
  // Opens (creating, mode 0600) the database at `path`, checks it
  // (quick_check) and brings a schema-1 table to schema 2; nullptr with the
  // reason in *why. A database written by a newer schema is refused.
  static std::unique_ptr<JobStore> open(const std::string& path, std::string* why,
                                        OpenFailure* failure = nullptr);
  // Opens an existing database for reading only (joule-ctl jobs --db): a
  // missing file is an error, never created; put() fails.
  static std::unique_ptr<JobStore> open_read_only(const std::string& path, std::string* why);
  // Appends the record; false with *why on failure.
  virtual bool put(const JobRecord& rec, std::string* why) = 0;
  virtual std::vector<JobRecord> query(const JobQuery& q, std::string* why) const = 0;
};

// JobStore::open for jouled: a damaged database (and its -wal, -shm and
// -journal files) is moved aside to PATH.corrupt-<UTC time> and a fresh one
// created, so that records go on; *moved_to names where it went (else "")
// and *why what was wrong with it. nullptr with *why when the database
// cannot be opened for another reason or the fresh one cannot be made.
std::unique_ptr<JobStore> open_or_recover(const std::string& path, std::string* moved_to,
                                          std::string* why);

// One record as the `jobs` protocol answer and `joule-ctl jobs` print it:
// "job=ID user=NAME uid=N cpus=LIST start=UNIX_S duration_s=S energy_j=J
// energy_scope=... avg_khz=K pstate_s=K:S,...". Job id and user name are
// escaped as protocol values (service_protocol.hpp), an empty list is "-",
// seconds and joules have 3 decimals, kHz none.
std::string format_record(const JobRecord& rec);

}  // namespace joule::service
