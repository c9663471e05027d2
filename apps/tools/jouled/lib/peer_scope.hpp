// What the service learns about a client process from the kernel, never from
// the client: its cgroup (and so its Slurm job, if any), the CPUs its cpuset
// allows and the CPUs its threads may run on. See cgroups(7) for
// /proc/PID/cgroup and the two hierarchies' cpuset files
// (Documentation/admin-guide/cgroup-v2.rst "Cpuset", cgroup-v1/cpusets.rst).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace joule::service {

struct CgroupPlace {
  std::string v2_path;      // the "0::" line's path, empty if none
  std::string cpuset_path;  // the v1 cpuset controller's path, empty if none
};

// Parses /proc/PID/cgroup text.
CgroupPlace parse_proc_cgroup(const std::string& text);
// Slurm's job id from a cgroup path with a "job_<N>" component
// (slurm/uid_U/job_N/step_S in v1, .../job_N/step_S/... in v2); empty if none.
std::string slurm_job_of(const std::string& cgroup_path);

// `proc_root` is where /proc is read (/proc; tests: a fake tree holding
// PID/cgroup files).
//
// The CPUs the process's cpuset allows: v2
// <root>/<path>/cpuset.cpus.effective (walking up while absent), else v1
// <root>/cpuset/<path>/cpuset.effective_cpus (or cpuset.cpus); nullopt
// when neither can be read (no cpuset controller: no restriction).
std::optional<std::vector<int>> cpuset_of(int pid, const std::string& cgroup_root,
                                          const std::string& proc_root = "/proc");
// The union of the affinities of the process's threads (/proc/PID/task/*,
// sched_getaffinity(2)); empty if the process is gone.
std::vector<int> affinity_of(int pid);
// cpuset (if any) intersected with affinity, sorted.
std::vector<int> scope_of(int pid, const std::string& cgroup_root,
                          const std::string& proc_root = "/proc");
// Slurm's job id from the process's cgroup (PROC/PID/cgroup), the only
// place a Slurm job id is taken from; "" when its cgroup names none.
std::string cgroup_job_of(int pid, const std::string& proc_root = "/proc");

}  // namespace joule::service
