// DVFS backends behind one interface. A backend owns frequency domains
// (sets of CPUs sharing a clock), each with an ascending P-state table in
// kHz; setting any CPU's frequency sets its whole domain. The base class
// keeps the current level and the residency per domain, so every backend
// reports the same way; subclasses only apply a change.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace joule::platform {

// What a backend can do (Dvfs::caps()).
enum DvfsCap : unsigned {
  kCapSet = 1u << 0,      // frequencies can be changed
  kCapReal = 1u << 1,     // changes reach the hardware (cpufreq)
  kCapPerCore = 1u << 2,  // every domain is one CPU
  kCapPerChip = 1u << 3,  // some domain spans several CPUs
  kCapStretch = 1u << 4,  // emulation: slowed CPUs stretch their tasks
  kCapLatency = 1u << 5,  // a change stalls the CPU for a modelled latency
};

class Dvfs {
 public:
  virtual ~Dvfs() = default;
  virtual const char* name() const = 0;
  unsigned caps() const noexcept { return caps_; }
  bool can_set() const noexcept { return (caps_ & kCapSet) != 0; }

  int num_domains() const noexcept { return int(domains_.size()); }
  const std::vector<int>& domain_cpus(int d) const { return domains_[std::size_t(d)]->cpus; }
  int domain_of(int cpu) const noexcept;  // -1: not controlled
  // Ascending kHz; empty for a CPU the backend does not control.
  const std::vector<std::uint32_t>& pstates(int cpu) const;
  int level(int cpu) const noexcept;                // index into pstates, -1 if none
  std::uint32_t frequency(int cpu) const noexcept;  // kHz, 0 if unknown
  bool set_level(int cpu, int level);
  // Snaps to the nearest P-state (ties go up). False if not controlled or
  // the backend failed to apply it.
  bool set_frequency(int cpu, std::uint32_t khz);
  // Nanoseconds spent at each P-state since reset_residency, up to `now`.
  std::vector<std::uint64_t> residency(int domain, std::uint64_t now) const;
  void reset_residency(std::uint64_t now);
  // Emulated transition latency owed by a CPU; returns it and clears it.
  std::uint64_t take_stall_ns(int cpu) noexcept;
  // The emulated latency one change costs (0 for real backends).
  std::uint64_t stall_ns() const noexcept { return stall_ns_; }
  // The thread (gettid) that last set domain d; 0 if none. Tests
  // use it to prove who applies a decision (docs/internals.md).
  long last_writer(int domain) const noexcept;
  // Puts the machine back as it was found (real backends).
  virtual void restore() {}
  // Why domain d's changes fail, for the report (e.g. another process owns
  // its CPUs); empty if they do not.
  virtual std::string domain_note(int) const { return {}; }
  // Where frequency changes appear in a trace (counter "frequency_mhz" of a
  // CPU): real_of[c] lists the CPUs of the workers that platform CPU c
  // stands for (a synthetic topology maps workers to model PUs). Unset, a
  // CPU is its own trace CPU. Set before the workers start.
  void set_trace_cpus(std::vector<std::vector<int>> real_of) { trace_cpus_ = std::move(real_of); }
  std::string describe() const;

  static int nearest_level(const std::vector<std::uint32_t>& table, std::uint32_t khz);

 protected:
  void add_domain(std::vector<int> cpus, std::vector<std::uint32_t> table, int level);
  // Applies khz to domain d; called with domain d's lock held (changes of
  // different domains run in parallel: each worker sets its own).
  virtual bool apply(int d, std::uint32_t khz) = 0;
  // Whether domain d still runs at the level last applied; a backend whose
  // hardware can be reset behind its back (the service ends a lease when
  // its connection breaks) says no, so that the same level is applied again.
  // Called with domain d's lock held.
  virtual bool level_current(int /*d*/) const { return true; }
  void set_stall_ns(std::uint64_t ns) noexcept { stall_ns_ = ns; }
  unsigned caps_ = 0;

 private:
  struct Domain {
    std::vector<int> cpus;
    std::vector<std::uint32_t> table;
    std::atomic<int> level{0};
    std::uint64_t since = 0;
    std::vector<std::uint64_t> residency;
    std::atomic<long> writer{0};  // thread id of the last set_level
    mutable std::mutex mu;
  };
  struct CpuSlot {
    int domain = -1;
    std::atomic<std::uint64_t> stall{0};
  };
  std::vector<std::unique_ptr<Domain>> domains_;
  void trace_change(const Domain& dom, std::uint32_t khz) const noexcept;

  std::vector<std::unique_ptr<CpuSlot>> cpus_;  // indexed by CPU number
  std::vector<std::vector<int>> trace_cpus_;    // see set_trace_cpus
  std::uint64_t stall_ns_ = 0;
};

// dvfs=none: controls nothing.
std::unique_ptr<Dvfs> make_none_dvfs();

// dvfs=emulated: one domain per CPU of `cpus` (or per group of `groups`,
// for chip-wide DVFS), all starting at the highest P-state. A change stalls
// the domain's CPUs for latency_ns (taken by the task-stretching hook).
std::unique_ptr<Dvfs> make_emulated_dvfs(const std::vector<std::vector<int>>& groups,
                                         std::vector<std::uint32_t> table,
                                         std::uint64_t latency_ns);

}  // namespace joule::platform
