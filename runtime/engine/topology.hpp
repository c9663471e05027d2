// The machine as hwloc sees it, restricted to what this process may use, and
// thread binding. libnuma answers which memory node a CPU belongs to.
#pragma once

#include <hwloc.h>

#include <string>
#include <vector>

namespace joule::engine {

class Topology {
 public:
  Topology();
  ~Topology();
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;

  // CPUs (OS indices) in the calling process's affinity mask, ascending.
  const std::vector<int>& allowed_cpus() const noexcept { return allowed_; }
  // Binds the calling thread to one CPU; false (and no change) on failure.
  bool bind_current_thread(int cpu) const;
  // Saves / restores the calling thread's binding (the main thread's).
  void save_current_binding();
  void restore_current_binding();
  int numa_node_of(int cpu) const;
  // Highest OS CPU index of the machine + 1 (not only the process mask).
  int machine_cpus() const;
  std::string describe() const;

 private:
  hwloc_topology_t topo_ = nullptr;
  hwloc_bitmap_t saved_ = nullptr;
  std::vector<int> allowed_;
};

}  // namespace joule::engine
