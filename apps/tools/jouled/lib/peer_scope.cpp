#include "peer_scope.hpp"

#include <sched.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sysfs.hpp"

namespace joule::service {
namespace {

std::optional<std::string> slurp(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A path read from the kernel, made safe to append under a root: no ".."
// component can climb out of it.
bool safe_relative(const std::string& p) {
  std::istringstream is(p);
  for (std::string part; std::getline(is, part, '/');)
    if (part == "..") return false;
  return true;
}

std::optional<std::vector<int>> read_cpus(const std::string& file) {
  auto text = slurp(file);
  if (!text) return std::nullopt;
  return platform::parse_cpu_set(*text);
}

}  // namespace

CgroupPlace parse_proc_cgroup(const std::string& text) {
  CgroupPlace out;
  std::istringstream is(text);
  for (std::string line; std::getline(is, line);) {
    const auto a = line.find(':'), b = line.find(':', a == std::string::npos ? 0 : a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string ctrls = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (line.compare(0, a, "0") == 0 && ctrls.empty()) out.v2_path = path;
    std::istringstream cs(ctrls);
    for (std::string c; std::getline(cs, c, ',');)
      if (c == "cpuset") out.cpuset_path = path;
  }
  return out;
}

std::string slurm_job_of(const std::string& cgroup_path) {
  std::istringstream is(cgroup_path);
  for (std::string part; std::getline(is, part, '/');) {
    if (part.size() <= 4 || part.compare(0, 4, "job_") != 0) continue;
    const std::string id = part.substr(4);
    if (std::all_of(id.begin(), id.end(), [](unsigned char c) { return std::isdigit(c); }))
      return id;
  }
  return "";
}

std::optional<std::vector<int>> cpuset_of(int pid, const std::string& cgroup_root,
                                          const std::string& proc_root) {
  auto text = slurp(proc_root + "/" + std::to_string(pid) + "/cgroup");
  if (!text) return std::nullopt;
  const CgroupPlace place = parse_proc_cgroup(*text);
  if (!place.cpuset_path.empty() && safe_relative(place.cpuset_path)) {
    const std::string dir = cgroup_root + "/cpuset" + place.cpuset_path;
    for (const char* f : {"/cpuset.effective_cpus", "/cpuset.cpus"})
      if (auto cpus = read_cpus(dir + f)) return cpus;
  }
  if (place.v2_path.empty() || !safe_relative(place.v2_path)) return std::nullopt;
  // A cgroup without the cpuset controller enabled has no file: its
  // nearest ancestor's (or the root's) set applies.
  std::filesystem::path p = place.v2_path;
  for (;;) {
    if (auto cpus = read_cpus(cgroup_root + p.string() + "/cpuset.cpus.effective")) return cpus;
    if (p == p.root_path() || p.empty()) return std::nullopt;
    p = p.parent_path();
  }
}

std::vector<int> affinity_of(int pid) {
  std::vector<int> out;
  std::error_code ec;
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  for (auto& e : std::filesystem::directory_iterator(tasks, ec)) {
    const int tid = std::atoi(e.path().filename().c_str());
    cpu_set_t set;
    CPU_ZERO(&set);
    if (tid <= 0 || ::sched_getaffinity(tid, sizeof set, &set) != 0) continue;
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) out.push_back(c);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<int> scope_of(int pid, const std::string& cgroup_root, const std::string& proc_root) {
  std::vector<int> aff = affinity_of(pid);
  auto set = cpuset_of(pid, cgroup_root, proc_root);
  if (!set) return aff;
  std::sort(set->begin(), set->end());
  std::vector<int> out;
  std::set_intersection(aff.begin(), aff.end(), set->begin(), set->end(), std::back_inserter(out));
  return out;
}

std::string cgroup_job_of(int pid, const std::string& proc_root) {
  auto text = slurp(proc_root + "/" + std::to_string(pid) + "/cgroup");
  if (!text) return "";
  const CgroupPlace place = parse_proc_cgroup(*text);
  std::string job = slurm_job_of(place.v2_path);
  return job.empty() ? slurm_job_of(place.cpuset_path) : job;
}

}  // namespace joule::service
