// Per-job bookkeeping while a job's leases live: which CPUs it used, at
// which frequencies for how long, and its energy (EnergyLedger, over the
// packages of its CPUs); the JobRecord is written to the JobStore when its
// last lease ends, or at `job-end`. A job is a JobKey: the id, where the id
// came from and the uid, so that no client-chosen `job=` reaches into another
// user's job or into a Slurm job (whose id only its cgroup gives).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "job_store.hpp"
#include "meter.hpp"
#include "sysfs.hpp"

namespace joule::service {

class EnergyLedger;

// Whose job a lease belongs to. Leases merge into one job (one record) only
// when all three are equal.
struct JobKey {
  std::string job;     // Slurm's, the client's, or local-<n>
  std::string source;  // cgroup, client, none
  uid_t uid = 0;
  auto operator<=>(const JobKey&) const = default;
};

class JobBook {
 public:
  // Opens the job database at `db` and the RAPL meter under the sysfs
  // root; either may be missing (reasons in *messages).
  JobBook(platform::Sysfs fs, const std::string& db, std::vector<std::string>* messages);
  ~JobBook();

  // A lease of `job` started; `cpus` run at `khz_of` each now.
  void lease_started(const JobKey& job, const std::string& user,
                     const std::map<int, std::uint32_t>& cpu_khz);
  // CPU `cpu` runs at `khz` from now on (every job that tracks it).
  void cpu_khz(int cpu, std::uint32_t khz);
  // A lease ended; when it was the job's last, its record is written and
  // returned (energy_j in it). `force` ends the job whatever remains.
  std::optional<JobRecord> lease_ended(const JobKey& job, bool force = false);
  std::optional<JobRecord> peek(const JobKey& job) const;

  bool energy_available() const;
  std::string energy_why() const;
  // Cumulative joules per RAPL zone since the service started.
  std::vector<platform::MeterDomain> energy_totals();
  bool has_store() const noexcept { return store_ != nullptr; }
  // Matching records as protocol fields (format_record); *why on failure.
  std::vector<std::string> query(const JobQuery& q, std::string* why) const;
  // Samples the meter (the 10 s timer); wrap-around is the ledger's.
  void sample();
  // 1 when another job shares a package with `job`.
  bool shares_packages(const JobKey& job) const;
  // The audit line for a damaged database moved aside at start, or "".
  const std::string& recovery_note() const noexcept { return recovery_note_; }

 private:
  struct Live {
    JobRecord rec;
    int leases = 0;
    std::int64_t start_ns = 0;
    std::map<int, std::pair<std::uint32_t, std::int64_t>> cpu;  // kHz since ns
    std::map<std::uint32_t, double> residency;
    std::vector<int> packages;
    std::string ledger_key;  // the EnergyLedger's name for this job
  };
  void close_segments(Live& j, std::int64_t now);
  std::vector<int> packages_of(const std::vector<int>& cpus) const;

  platform::Sysfs fs_;
  std::unique_ptr<EnergyLedger> ledger_;  // null: no meter
  std::unique_ptr<JobStore> store_;       // null: no database
  std::map<JobKey, Live> live_;
  std::string recovery_note_;
  int next_ledger_key_ = 1;
};

std::int64_t monotonic_ns();

}  // namespace joule::service
