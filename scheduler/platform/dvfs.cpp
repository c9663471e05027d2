#include "dvfs.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include <unistd.h>

#include "observer.hpp"
#include "trace_api.hpp"

namespace joule::platform {
namespace {

const std::vector<std::uint32_t> kNoTable;

class NoneDvfs final : public Dvfs {
 public:
  const char* name() const override { return "none"; }

 protected:
  bool apply(int, std::uint32_t) override { return false; }
};

}  // namespace

std::unique_ptr<Dvfs> make_none_dvfs() { return std::make_unique<NoneDvfs>(); }

int Dvfs::nearest_level(const std::vector<std::uint32_t>& table, std::uint32_t khz) {
  if (table.empty()) return -1;
  int best = 0;
  for (int i = 1; i < int(table.size()); ++i) {
    const auto d_best = std::int64_t(table[std::size_t(best)]) - std::int64_t(khz);
    const auto d_i = std::int64_t(table[std::size_t(i)]) - std::int64_t(khz);
    if (std::abs(d_i) <= std::abs(d_best)) best = i;  // ties go to the higher one
  }
  return best;
}

int Dvfs::domain_of(int cpu) const noexcept {
  if (cpu < 0 || std::size_t(cpu) >= cpus_.size() || !cpus_[std::size_t(cpu)]) return -1;
  return cpus_[std::size_t(cpu)]->domain;
}

const std::vector<std::uint32_t>& Dvfs::pstates(int cpu) const {
  const int d = domain_of(cpu);
  return d < 0 ? kNoTable : domains_[std::size_t(d)]->table;
}

int Dvfs::level(int cpu) const noexcept {
  const int d = domain_of(cpu);
  return d < 0 ? -1 : domains_[std::size_t(d)]->level.load(std::memory_order_relaxed);
}

std::uint32_t Dvfs::frequency(int cpu) const noexcept {
  const int d = domain_of(cpu);
  if (d < 0) return 0;
  const Domain& dom = *domains_[std::size_t(d)];
  return dom.table[std::size_t(dom.level.load(std::memory_order_relaxed))];
}

bool Dvfs::set_level(int cpu, int lvl) {
  const int d = domain_of(cpu);
  if (d < 0 || !can_set()) return false;
  Domain& dom = *domains_[std::size_t(d)];
  if (lvl < 0 || lvl >= int(dom.table.size())) return false;
  std::lock_guard guard(dom.mu);
  dom.writer.store(long(::gettid()), std::memory_order_relaxed);
  const int old = dom.level.load(std::memory_order_relaxed);
  if (old == lvl && level_current(d)) return true;
  if (!apply(d, dom.table[std::size_t(lvl)])) return false;
  const std::uint64_t now = core::now_ns();
  dom.residency[std::size_t(old)] += now - dom.since;
  dom.since = now;
  dom.level.store(lvl, std::memory_order_relaxed);
  if (stall_ns_)
    for (int c : dom.cpus)
      cpus_[std::size_t(c)]->stall.fetch_add(stall_ns_, std::memory_order_relaxed);
  if (core::trace::enabled()) trace_change(dom, dom.table[std::size_t(lvl)]);
  return true;
}

// One sample per trace CPU of the domain, so that each worker's row shows
// its own clock (a chip-wide change moves every row of the chip).
void Dvfs::trace_change(const Domain& dom, std::uint32_t khz) const noexcept {
  const double mhz = khz / 1000.0;
  for (int c : dom.cpus) {
    if (trace_cpus_.empty()) {
      core::trace::emit_counter("frequency_mhz", mhz, c);
      continue;
    }
    if (c < 0 || std::size_t(c) >= trace_cpus_.size()) continue;
    for (int real : trace_cpus_[std::size_t(c)])
      core::trace::emit_counter("frequency_mhz", mhz, real);
  }
}

long Dvfs::last_writer(int d) const noexcept {
  if (d < 0 || d >= num_domains()) return 0;
  return domains_[std::size_t(d)]->writer.load(std::memory_order_relaxed);
}

bool Dvfs::set_frequency(int cpu, std::uint32_t khz) {
  return set_level(cpu, nearest_level(pstates(cpu), khz));
}

std::vector<std::uint64_t> Dvfs::residency(int d, std::uint64_t now) const {
  const Domain& dom = *domains_[std::size_t(d)];
  std::lock_guard guard(dom.mu);
  std::vector<std::uint64_t> out = dom.residency;
  const int lvl = dom.level.load(std::memory_order_relaxed);
  if (now > dom.since) out[std::size_t(lvl)] += now - dom.since;
  return out;
}

void Dvfs::reset_residency(std::uint64_t now) {
  for (auto& dom : domains_) {
    std::lock_guard guard(dom->mu);
    std::fill(dom->residency.begin(), dom->residency.end(), 0);
    dom->since = now;
  }
}

std::uint64_t Dvfs::take_stall_ns(int cpu) noexcept {
  if (cpu < 0 || std::size_t(cpu) >= cpus_.size() || !cpus_[std::size_t(cpu)]) return 0;
  auto& s = cpus_[std::size_t(cpu)]->stall;
  if (s.load(std::memory_order_relaxed) == 0) return 0;
  return s.exchange(0, std::memory_order_relaxed);
}

void Dvfs::add_domain(std::vector<int> cpus, std::vector<std::uint32_t> table, int lvl) {
  auto dom = std::make_unique<Domain>();
  const int d = int(domains_.size());
  for (int c : cpus) {
    if (c < 0) continue;
    if (std::size_t(c) >= cpus_.size()) cpus_.resize(std::size_t(c) + 1);
    if (!cpus_[std::size_t(c)]) cpus_[std::size_t(c)] = std::make_unique<CpuSlot>();
    cpus_[std::size_t(c)]->domain = d;
  }
  dom->cpus = std::move(cpus);
  dom->residency.assign(table.size(), 0);
  dom->table = std::move(table);
  dom->level.store(std::clamp(lvl, 0, int(dom->table.size()) - 1));
  dom->since = core::now_ns();
  domains_.push_back(std::move(dom));
  bool shared = false;
  for (auto& x : domains_) shared = shared || x->cpus.size() > 1;
  caps_ = (caps_ & ~(kCapPerCore | kCapPerChip)) | (shared ? kCapPerChip : kCapPerCore);
}

std::string Dvfs::describe() const {
  std::string out = name();
  if (domains_.empty()) return out;
  const auto& t = domains_.front()->table;
  char buf[160];
  std::snprintf(buf, sizeof buf, ": %d domain(s) of %zu+ CPU(s), %zu P-states %.2f-%.2f GHz",
                num_domains(), domains_.front()->cpus.size(), t.size(), t.front() / 1e6,
                t.back() / 1e6);
  return out + buf + ((caps_ & kCapPerChip) ? ", shared domains" : ", per core");
}

}  // namespace joule::platform
