// How many workers a run starts on its own CPUs, and whether they outnumber
// the CPUs they can run on at once. Decided once at start (Runtime's
// constructor) from JOULE_WORKERS, the CPUs of JOULE_CPUS or the affinity
// mask, and the cgroup CPU quota (core/cpu_quota.hpp).
//
// Without JOULE_WORKERS: one worker per CPU, but no more than the quota
// rounded up, on the first CPUs of the list. A container with a 16-CPU
// quota and a 128-CPU mask gets 16 workers, not 128 that the kernel would
// throttle in turn (each runs until the group's quota for the period is
// spent, then all wait: docs.kernel.org/scheduler/sched-bwc.html).
//
// Oversubscribed: more workers than that, so a spinning waiter may hold the
// CPU that the thread it waits for needs; the spin loops then yield early.
// Load from other processes is not counted: it cannot be seen cheaply.
#pragma once

#include <optional>
#include <string>

#include "cpu_quota.hpp"
#include "engine_settings.hpp"

namespace joule::engine {

struct CpuBudget {
  int mask_cpus = 0;                    // JOULE_CPUS, else the affinity mask
  std::optional<core::CpuQuota> quota;  // the cgroup CPU quota, if any
  int workers = 0;                      // workers on the process's own CPUs
  bool workers_set = false;             // JOULE_WORKERS chose `workers`
  Oversubscription mode = Oversubscription::automatic;
  bool oversubscribed = false;

  // How many workers can run at once: the mask's CPUs, or fewer when the
  // quota rounded up is less.
  int runnable_cpus() const noexcept;
  // One line for the configuration dump and the report: the counts, where
  // the quota came from, and why the workers are as many as they are.
  std::string describe() const;
  // Empty unless the workers outnumber the runnable CPUs: then why a
  // task-aware layer that spins per process (TAMPI's queue locks) can
  // crawl, and what to change (docs/porting-ompss.md, section 6).
  std::string seat_sharing_note() const;
};

// The decision, from the settings, the CPU count and the quota (pure: the
// tests call it with made-up numbers).
CpuBudget plan_cpu_budget(const EngineSettings& s, int mask_cpus,
                          std::optional<core::CpuQuota> quota);
// Reads the quota under s.cgroup_root, then plans.
CpuBudget read_cpu_budget(const EngineSettings& s, int mask_cpus);

}  // namespace joule::engine
