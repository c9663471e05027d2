#include "job_book.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "energy_ledger.hpp"

namespace joule::service {

std::int64_t monotonic_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

JobBook::JobBook(platform::Sysfs fs, const std::string& db, std::vector<std::string>* messages)
    : fs_(std::move(fs)) {
  ledger_ = std::make_unique<EnergyLedger>(fs_);
  if (!ledger_->available()) messages->push_back("no energy meter: " + ledger_->why());
  std::string why, moved;
  store_ = open_or_recover(db, &moved, &why);
  if (!store_)
    messages->push_back("no job records: " + why);
  else if (!moved.empty())
    recovery_note_ = "job database damaged (" + why + "): moved to " + moved +
                     "; records go on in a fresh " + db;
}

JobBook::~JobBook() = default;

bool JobBook::energy_available() const { return ledger_ && ledger_->available(); }

std::string JobBook::energy_why() const { return ledger_ ? ledger_->why() : "no energy ledger"; }

std::vector<platform::MeterDomain> JobBook::energy_totals() {
  if (!energy_available()) return {};
  ledger_->sample(monotonic_ns());
  return ledger_->totals();
}

std::vector<std::string> JobBook::query(const JobQuery& q, std::string* why) const {
  std::vector<std::string> out;
  if (store_)
    for (const auto& rec : store_->query(q, why)) out.push_back(format_record(rec));
  return out;
}

std::vector<int> JobBook::packages_of(const std::vector<int>& cpus) const {
  std::vector<int> out;
  for (int c : cpus) {
    auto p = fs_.read_u64("/sys/devices/system/cpu/cpu" + std::to_string(c) +
                          "/topology/physical_package_id");
    out.push_back(p ? int(*p) : 0);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void JobBook::lease_started(const JobKey& job, const std::string& user,
                            const std::map<int, std::uint32_t>& cpu_khz) {
  const std::int64_t now = monotonic_ns();
  auto [it, fresh] = live_.try_emplace(job);
  Live& j = it->second;
  if (fresh) {
    j.rec.job = job.job;
    j.rec.job_source = job.source;
    j.rec.uid = job.uid;
    j.rec.user = user;
    j.rec.start_unix_s = std::int64_t(std::time(nullptr));
    j.start_ns = now;
    j.ledger_key = std::to_string(next_ledger_key_++);
  }
  ++j.leases;
  for (auto [cpu, khz] : cpu_khz) {
    if (!j.cpu.count(cpu)) j.cpu[cpu] = {khz, now};
    if (std::find(j.rec.cpus.begin(), j.rec.cpus.end(), cpu) == j.rec.cpus.end())
      j.rec.cpus.push_back(cpu);
  }
  std::sort(j.rec.cpus.begin(), j.rec.cpus.end());
  auto packages = packages_of(j.rec.cpus);
  if (ledger_ && ledger_->available()) {
    if (fresh)
      ledger_->job_started(j.ledger_key, packages, now);
    else if (packages != j.packages)
      ledger_->update_job(j.ledger_key, packages, now);
  }
  j.packages = std::move(packages);
}

void JobBook::cpu_khz(int cpu, std::uint32_t khz) {
  const std::int64_t now = monotonic_ns();
  for (auto& [name, j] : live_) {
    auto it = j.cpu.find(cpu);
    if (it == j.cpu.end() || it->second.first == khz) continue;
    j.residency[it->second.first] += double(now - it->second.second) / 1e9;
    it->second = {khz, now};
  }
}

void JobBook::close_segments(Live& j, std::int64_t now) {
  for (auto& [cpu, seg] : j.cpu) {
    j.residency[seg.first] += double(now - seg.second) / 1e9;
    seg.second = now;
  }
}

std::optional<JobRecord> JobBook::peek(const JobKey& job) const {
  auto it = live_.find(job);
  if (it == live_.end()) return std::nullopt;
  return it->second.rec;
}

std::optional<JobRecord> JobBook::lease_ended(const JobKey& job, bool force) {
  auto it = live_.find(job);
  if (it == live_.end()) return std::nullopt;
  Live& j = it->second;
  if (--j.leases > 0 && !force) return std::nullopt;
  const std::int64_t now = monotonic_ns();
  close_segments(j, now);
  JobRecord rec = j.rec;
  rec.duration_s = double(now - j.start_ns) / 1e9;
  double cpu_s = 0, khz_s = 0;
  for (auto [khz, s] : j.residency) {
    rec.pstate_s.emplace_back(khz, s);
    cpu_s += s;
    khz_s += double(khz) * s;
  }
  rec.avg_khz = cpu_s > 0 ? khz_s / cpu_s : 0;
  rec.energy_scope = "none";
  if (ledger_ && ledger_->available()) {
    const auto e = ledger_->job_ended(j.ledger_key, now);
    rec.energy_j = e.joules;
    rec.energy_scope = e.scope;
  }
  live_.erase(it);
  std::string why;
  if (store_ && !store_->put(rec, &why))
    std::fprintf(stderr, "jouled: job %s (uid %u): record not written: %s\n", job.job.c_str(),
                 unsigned(job.uid), why.c_str());
  return rec;
}

void JobBook::sample() {
  if (ledger_ && ledger_->available()) ledger_->sample(monotonic_ns());
}

bool JobBook::shares_packages(const JobKey& job) const {
  auto it = live_.find(job);
  if (it == live_.end()) return false;
  for (const auto& [key, other] : live_) {
    if (key == job) continue;
    for (int p : other.packages)
      if (std::find(it->second.packages.begin(), it->second.packages.end(), p) !=
          it->second.packages.end())
        return true;
  }
  return false;
}

}  // namespace joule::service
