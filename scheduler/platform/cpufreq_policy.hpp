// One CPU's cpufreq policy as the kernel describes it
// (Documentation/admin-guide/pm/cpufreq.rst): its frequency table, the CPUs
// that share it, and how it can be driven (the `userspace` governor's
// scaling_setspeed, or scaling_min_freq = scaling_max_freq for drivers
// without it, such as intel_pstate in active mode). Read by the cpufreq
// DVFS backend and by jouled, so both see the same domains.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sysfs.hpp"

namespace joule::platform {

inline constexpr const char* kCpufreqCpuDir = "/sys/devices/system/cpu";

struct CpufreqCpu {
  int cpu = 0;
  std::string dir;                   // kernel path of cpuN/cpufreq
  std::vector<std::uint32_t> table;  // kHz, ascending
  std::vector<int> related;          // the policy's CPUs, sorted, this one included
  bool userspace = false;            // else pin min = max
  bool writable = false;
  std::optional<std::uint32_t> cur_khz;  // scaling_cur_freq
};

// Reads one CPU's policy; false if it cannot be controlled (with a reason
// in `why`, empty when the CPU simply has no cpufreq folder).
bool read_cpufreq_cpu(const Sysfs& fs, int cpu, CpufreqCpu& info, std::string& why);
// Every CPU with a controllable policy, ascending; reasons for the others
// joined in *why_all.
std::vector<CpufreqCpu> read_cpufreq_cpus(const Sysfs& fs, std::string* why_all);

// Positive integers of a scaling_available_frequencies text, ascending, no
// duplicates; anything else is ignored.
std::vector<std::uint32_t> parse_frequency_list(const std::string& text);

}  // namespace joule::platform
