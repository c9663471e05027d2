#include "domain_table.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>

#include "cpufreq_policy.hpp"

namespace joule::service {

void DomainTable::discover(std::string* why) {
  domains_.clear();
  const auto cpus = platform::read_cpufreq_cpus(fs_, why);
  std::map<std::vector<int>, std::vector<const platform::CpufreqCpu*>> groups;
  for (const auto& c : cpus) groups[c.related].push_back(&c);
  for (auto& [key, members] : groups) {
    bool writable = true;
    for (auto* m : members) writable = writable && m->writable;
    if (!writable) {
      if (why) *why += (why->empty() ? "" : "; ") + members.front()->dir + ": read-only";
      continue;
    }
    Domain d;
    d.id = int(domains_.size());
    d.table = members.front()->table;
    d.userspace = members.front()->userspace;
    for (auto* m : members) {
      d.cpus.push_back(m->cpu);
      d.userspace = d.userspace && m->userspace;
      const std::string canon = fs_.canonical(m->dir);
      bool dup = false;
      for (auto& other : d.dirs) dup = dup || fs_.canonical(other) == canon;
      if (!dup) d.dirs.push_back(m->dir);
    }
    domains_.push_back(std::move(d));
  }
}

const Domain* DomainTable::of_cpu(int cpu) const {
  for (const auto& d : domains_)
    if (std::binary_search(d.cpus.begin(), d.cpus.end(), cpu)) return &d;
  return nullptr;
}

std::vector<std::string> DomainTable::files_of(const Domain& d) const {
  std::vector<std::string> out;
  for (const auto& dir : d.dirs) {
    const char* const us[] = {"scaling_governor", "scaling_setspeed"};
    const char* const mm[] = {"scaling_min_freq", "scaling_max_freq"};
    for (const char* f : d.userspace ? us : mm) out.push_back(fs_.path(dir + "/" + f));
  }
  return out;
}

std::uint32_t DomainTable::original_ceiling(
    const Domain& d,
    const std::function<std::optional<std::string>(const std::string&)>& original_of) const {
  const std::string file = fs_.path(d.dirs.front() + "/scaling_max_freq");
  auto text = original_of(file);
  if (!text) text = fs_.read(d.dirs.front() + "/scaling_max_freq");
  const unsigned long v = text ? std::strtoul(text->c_str(), nullptr, 10) : 0;
  return v > 0 ? std::uint32_t(v) : d.table.back();
}

bool DomainTable::put(const std::string& file, const std::string& value, const SaveOriginal& save,
                      std::vector<FileChange>* changes, std::string* why) const {
  auto old = fs_.read_raw(file);
  if (!old) {
    *why = "cannot read " + fs_.path(file);
    return false;
  }
  const std::string real = fs_.path(file);
  if (!save(real, *old, why)) return false;
  std::string trimmed = *old;
  while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.back())))
    trimmed.pop_back();
  if (trimmed == value) return true;
  if (!fs_.write(file, value)) {
    *why = "cannot write " + real + ": " + std::strerror(errno);
    return false;
  }
  // Read back: a kernel may accept a write and clamp it.
  const std::string now = fs_.read(file).value_or("?");
  if (now != value) {
    *why = real + " reads '" + now + "' after writing " + value;
    return false;
  }
  if (changes) changes->push_back({real, trimmed, value});
  return true;
}

bool DomainTable::set(const Domain& d, std::uint32_t khz, const SaveOriginal& save,
                      std::vector<FileChange>* changes, std::string* why) const {
  const std::string v = std::to_string(khz);
  for (const auto& dir : d.dirs) {
    if (d.userspace) {
      // scaling_setspeed changes meaning with the governor: saved too.
      if (auto sp = fs_.read_raw(dir + "/scaling_setspeed"))
        if (!save(fs_.path(dir + "/scaling_setspeed"), *sp, why)) return false;
      if (!put(dir + "/scaling_governor", "userspace", save, changes, why) ||
          !put(dir + "/scaling_setspeed", v, save, changes, why))
        return false;
      continue;
    }
    // min = max = khz in the order that never makes min > max on the way.
    const std::uint64_t lo = fs_.read_u64(dir + "/scaling_min_freq").value_or(0);
    const bool up = khz >= lo;
    const std::string first = up ? "/scaling_max_freq" : "/scaling_min_freq";
    const std::string second = up ? "/scaling_min_freq" : "/scaling_max_freq";
    if (!put(dir + first, v, save, changes, why) || !put(dir + second, v, save, changes, why))
      return false;
  }
  return true;
}

std::optional<std::uint32_t> DomainTable::current_khz(const Domain& d) const {
  auto v = fs_.read_u64(d.dirs.front() + "/scaling_cur_freq");
  if (!v || *v == 0 || *v > 100000000) return std::nullopt;
  return std::uint32_t(*v);
}

std::optional<std::uint32_t> snap_pstate(const std::vector<std::uint32_t>& table, std::uint32_t khz,
                                         std::uint32_t lo, std::uint32_t hi) {
  std::optional<std::uint32_t> best;
  for (auto f : table) {
    if (f < lo || (hi != 0 && f > hi)) continue;
    const auto dist = [&](std::uint32_t x) { return x > khz ? x - khz : khz - x; };
    if (!best || dist(f) < dist(*best)) best = f;
  }
  return best;
}

bool within_step(const std::vector<std::uint32_t>& table, std::uint32_t target,
                 std::uint32_t effective) {
  const std::uint32_t diff = target > effective ? target - effective : effective - target;
  std::uint32_t step = 0;
  for (std::size_t i = 1; i < table.size(); ++i) step = std::max(step, table[i] - table[i - 1]);
  return diff <= step || diff <= target / 20;
}

}  // namespace joule::service
