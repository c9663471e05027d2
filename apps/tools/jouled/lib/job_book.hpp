// Per-job bookkeeping while a job's leases live: which CPUs it used, at
// which frequencies for how long, and its energy (EnergyLedger, over the
// packages of its CPUs); the JobRecord is written to the JobStore when its
// last lease ends, or at `job-end`.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "energy_ledger.hpp"
#include "job_store.hpp"
#include "sysfs.hpp"

namespace joule::service {

class JobBook {
 public:
  // Either pointer may be null: no energy meter, no database.
  JobBook(platform::Sysfs fs, EnergyLedger* ledger, JobStore* store);

  // A lease of `job` started; `cpus` run at `khz_of` each now.
  void lease_started(const std::string& job, const std::string& source, uid_t uid,
                     const std::string& user, const std::map<int, std::uint32_t>& cpu_khz);
  // CPU `cpu` runs at `khz` from now on (every job that tracks it).
  void cpu_khz(int cpu, std::uint32_t khz);
  // A lease ended; when it was the job's last, its record is written and
  // returned (energy_j in it). `force` ends the job whatever remains.
  std::optional<JobRecord> lease_ended(const std::string& job, bool force = false);
  std::optional<JobRecord> peek(const std::string& job) const;

  EnergyLedger* ledger() const noexcept { return ledger_; }
  JobStore* store() const noexcept { return store_; }
  // Samples the meter (the 10 s timer); wrap-around is the ledger's.
  void sample();
  // 1 when another job shares a package with `job`.
  bool shares_packages(const std::string& job) const;

 private:
  struct Live {
    JobRecord rec;
    int leases = 0;
    std::int64_t start_ns = 0;
    std::map<int, std::pair<std::uint32_t, std::int64_t>> cpu;  // kHz since ns
    std::map<std::uint32_t, double> residency;
    std::vector<int> packages;
  };
  void close_segments(Live& j, std::int64_t now);
  std::vector<int> packages_of(const std::vector<int>& cpus) const;

  platform::Sysfs fs_;
  EnergyLedger* ledger_;
  JobStore* store_;
  std::map<std::string, Live> live_;
};

std::int64_t monotonic_ns();

}  // namespace joule::service
