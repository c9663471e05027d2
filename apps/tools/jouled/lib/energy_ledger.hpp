// Per-job RAPL energy for jouled. RAPL measures packages, not processes
// (Intel SDM vol. 3B, "Platform Specific Power Management Support"), so a
// job is credited with the energy of the packages it runs on: every event
// and sample first reads all zones, and the increase of a package zone (and
// of its subzones, e.g. dram) over the interval since the previous read goes
// to every job active on that package during it. A job that ever shared a
// package with another job gets scope "node": its figure is the package's,
// not its own. Zones of no package (psys) are in totals() only.
// Thread-compatible: the daemon calls it from its one thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "rapl_zones.hpp"
#include "sysfs.hpp"

namespace joule::service {

struct JobEnergy {
  double joules = 0;
  std::string scope;  // package (alone on its packages), node (shared), none (no meter)
};

class EnergyLedger {
 public:
  explicit EnergyLedger(const platform::Sysfs& fs);

  // False when no RAPL zone is readable; why() says why.
  bool available() const noexcept { return !zones_.empty(); }
  const std::string& why() const noexcept { return why_; }

  // Reads every zone and credits the increase since the previous read.
  void sample(std::uint64_t now_ns);
  // Cumulative joules per zone since the ledger was made.
  std::vector<platform::MeterDomain> totals() const;

  // `packages` are physical package ids (the N of package-N). A job
  // started twice, or updated before it started, is (re)set to `packages`.
  void job_started(const std::string& job, const std::vector<int>& packages, std::uint64_t now_ns);
  void update_job(const std::string& job, const std::vector<int>& packages, std::uint64_t now_ns);
  // The job's energy; an unknown job gets 0 J, scope none.
  JobEnergy job_ended(const std::string& job, std::uint64_t now_ns);

  std::uint64_t last_sample_ns() const noexcept { return last_ns_; }

 private:
  struct Zone {
    platform::RaplZone info;
    std::uint64_t last_uj = 0;
    double joules = 0;
  };
  struct Job {
    std::vector<int> packages;
    double joules = 0;
    bool metered = false;  // some zone of its packages exists
    bool shared = false;
  };

  void credit(int chip, double joules);
  int jobs_on(int chip) const;

  platform::Sysfs fs_;
  std::vector<Zone> zones_;
  std::map<std::string, Job> jobs_;
  std::string why_;
  std::uint64_t last_ns_ = 0;
};

}  // namespace joule::service
