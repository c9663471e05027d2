// The Linux cpufreq backend. Per domain (the CPUs of one policy, from
// related_cpus / affected_cpus) it either selects the `userspace` governor
// and writes scaling_setspeed, or, for drivers without it (intel_pstate and
// amd-pstate in active mode), pins scaling_min_freq = scaling_max_freq.
// P-states come from scaling_available_frequencies, else 100 MHz steps
// between cpuinfo_min_freq and cpuinfo_max_freq. Every file is saved in the
// RestoreGuard before its first write, and restore() puts all back.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpufreq_policy.hpp"
#include "dvfs.hpp"
#include "machine.hpp"
#include "platform_settings.hpp"
#include "sysfs.hpp"

namespace joule::platform {

struct CpufreqStatus {
  int domains = 0;     // controllable domains found
  int writable = 0;    // of which joule may write
  std::string detail;  // why some are missing or read-only
};

// domain_mode: automatic (the kernel's policies), core (same: the hardware
// cannot be split finer), chip (policies merged per chip of `machine`).
// Domains that cannot be written are left out; see status.
std::unique_ptr<Dvfs> make_cpufreq_dvfs(const Sysfs& sysfs, const Machine& machine,
                                        DvfsDomain domain_mode, CpufreqStatus* status);

}  // namespace joule::platform
