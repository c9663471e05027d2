// The CPU bandwidth limit of the calling process's control groups: how many
// CPUs' worth of time per period the kernel lets its threads run, whatever
// its affinity mask says. A container started with `--cpus=16` on a
// 128-CPU machine has 128 CPUs in its mask and a quota of 16.
//
// cgroup v2 (docs.kernel.org/admin-guide/cgroup-v2.html, "cpu.max"): the
// line "0::/path" of /proc/self/cgroup names the group under the cgroup2
// mount; its cpu.max holds "$MAX $PERIOD", "max" meaning no limit.
// cgroup v1 (docs.kernel.org/scheduler/sched-bwc.html): the line whose
// controllers include "cpu" names the group under the cgroup mount that has
// the cpu option; cpu.cfs_quota_us / cpu.cfs_period_us, a quota of -1
// meaning no limit. A group is also held to its ancestors' limits, so every
// group from the process's up to the mount point is read and the tightest
// limit wins. Mount points come from /proc/self/mountinfo
// (docs.kernel.org/filesystems/proc.html, "/proc/<pid>/mountinfo").
#pragma once

#include <optional>
#include <string>

namespace joule::core {

struct CpuQuota {
  double cpus = 0;   // quota / period: 1.5 is one and a half CPUs' worth of time
  std::string file;  // the file that set the tightest limit, root included
};

// The tightest limit, or nothing when no group has one or the files are not
// there (no cgroups, no cpu controller). `root` prefixes every path read:
// "/" for the machine, a fake tree in tests (JOULE_CGROUP_ROOT). A file that
// is there but cannot be parsed is skipped with one warning naming it.
std::optional<CpuQuota> read_cpu_quota(const std::string& root = "/");

}  // namespace joule::core
