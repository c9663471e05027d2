#include "frequencies.hpp"

#include <algorithm>

namespace joule::platform {

Frequencies::Frequencies(const Machine& machine, std::vector<std::uint32_t> nominal)
    : machine_(machine), nominal_(std::move(nominal)) {}

const std::vector<std::uint32_t>& Frequencies::pstates(int cpu) const {
  const auto& t = dvfs_->pstates(cpu);
  return t.empty() ? nominal_ : t;
}

std::uint32_t Frequencies::frequency(int cpu) const {
  const std::uint32_t f = dvfs_->frequency(cpu);
  return f ? f : nominal_.back();
}

bool Frequencies::set_core(int cpu, std::uint32_t khz) { return dvfs_->set_frequency(cpu, khz); }

bool Frequencies::set_chip(int chip, std::uint32_t khz) {
  bool any = false, ok = true;
  std::vector<int> done_domains;
  for (const auto& pu : machine_.pus()) {
    if (pu.chip != chip) continue;
    const int d = dvfs_->domain_of(pu.cpu);
    if (d < 0 || std::find(done_domains.begin(), done_domains.end(), d) != done_domains.end())
      continue;
    done_domains.push_back(d);
    any = true;
    ok = dvfs_->set_frequency(pu.cpu, khz) && ok;
  }
  return any && ok;
}

void Frequencies::apply_start(const std::string& start, const std::vector<int>& cpus) {
  if (start.empty() || !dvfs_->can_set()) return;
  for (int cpu : cpus) {
    const auto& t = dvfs_->pstates(cpu);
    if (t.empty()) continue;
    const std::uint32_t khz = start == "min"   ? t.front()
                              : start == "max" ? t.back()
                                               : std::uint32_t(std::stod(start) * 1e6 + 0.5);
    dvfs_->set_frequency(cpu, khz);
    dvfs_->take_stall_ns(cpu);  // the start is not a task's transition
  }
}

}  // namespace joule::platform
