#include "energy_ledger.hpp"

#include <algorithm>

namespace joule::service {

EnergyLedger::EnergyLedger(const platform::Sysfs& fs) : fs_(fs) {
  for (auto& z : platform::discover_rapl_zones(fs_)) {
    const std::uint64_t start = z.energy_uj;
    zones_.push_back({std::move(z), start, 0});
  }
  if (zones_.empty()) why_ = platform::no_rapl_reason(fs_);
}

int EnergyLedger::jobs_on(int chip) const {
  int n = 0;
  for (const auto& [id, job] : jobs_)
    n += std::count(job.packages.begin(), job.packages.end(), chip) > 0;
  return n;
}

void EnergyLedger::credit(int chip, double joules) {
  const bool shared = jobs_on(chip) > 1;
  for (auto& [id, job] : jobs_) {
    if (std::find(job.packages.begin(), job.packages.end(), chip) == job.packages.end()) continue;
    job.joules += joules;
    job.shared = job.shared || shared;
  }
}

void EnergyLedger::sample(std::uint64_t now_ns) {
  last_ns_ = std::max(last_ns_, now_ns);
  for (auto& z : zones_) {
    const auto v = fs_.read_u64(z.info.dir + "/energy_uj");
    if (!v) continue;  // a transient read failure: the next read covers the interval
    const double j = double(platform::counter_delta(z.last_uj, *v, z.info.max_range_uj)) * 1e-6;
    z.last_uj = *v;
    z.joules += j;
    if (z.info.domain.chip >= 0) credit(z.info.domain.chip, j);
  }
}

std::vector<platform::MeterDomain> EnergyLedger::totals() const {
  std::vector<platform::MeterDomain> out;
  for (const auto& z : zones_) {
    out.push_back(z.info.domain);
    out.back().joules = z.joules;
  }
  return out;
}

void EnergyLedger::job_started(const std::string& job, const std::vector<int>& packages,
                               std::uint64_t now_ns) {
  sample(now_ns);
  Job& j = jobs_[job];
  j.packages = packages;
  for (const auto& z : zones_)
    if (std::count(packages.begin(), packages.end(), z.info.domain.chip)) j.metered = true;
}

void EnergyLedger::update_job(const std::string& job, const std::vector<int>& packages,
                              std::uint64_t now_ns) {
  job_started(job, packages, now_ns);
}

JobEnergy EnergyLedger::job_ended(const std::string& job, std::uint64_t now_ns) {
  sample(now_ns);
  const auto it = jobs_.find(job);
  if (it == jobs_.end() || !it->second.metered) {
    if (it != jobs_.end()) jobs_.erase(it);
    return {0, "none"};
  }
  JobEnergy e{it->second.joules, it->second.shared ? "node" : "package"};
  jobs_.erase(it);
  return e;
}

}  // namespace joule::service
