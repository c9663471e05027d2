// The machine as hwloc sees it, restricted to what this process may use, and
// thread binding. hwloc answers which memory node a CPU belongs to (on a
// synthetic topology too: its nodes need not exist on this machine).
#pragma once

#include <hwloc.h>

#include <string>
#include <vector>

#include "victim_order.hpp"

namespace joule::engine {

class Topology {
 public:
  // synthetic: an hwloc synthetic description ("pack:2 numa:2 core:8 pu:2")
  // instead of this machine, for tests; every CPU of it is allowed.
  explicit Topology(const char* synthetic = nullptr);
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
  // The NUMA node (hwloc's OS index: libnuma's number on this machine) of a
  // CPU; 0 when hwloc does not say.
  int numa_node_of(int cpu) const;
  // NUMA nodes of the topology (at least 1).
  int numa_nodes() const;
  // A synthetic description, not this machine: threads are not bound.
  bool synthetic() const noexcept { return synthetic_; }
  // How far apart two CPUs are for a thief (topology_order.cpp): the same
  // core, a shared cache, the same NUMA node, the same package, or further.
  queues::StealDistance distance(int cpu_a, int cpu_b) const;
  // cpus in the order workers take them: one PU per core in hwloc's logical
  // order (cores of a cache, a node, a package together), then the second
  // PU of each core, and so on: fewer workers than PUs spread over cores.
  std::vector<int> worker_order(const std::vector<int>& cpus) const;
  // Victims of a worker on `cpu`, nearest level first (others: worker index
  // and CPU of every other worker).
  queues::VictimOrder::Levels victim_levels(int cpu,
                                            const std::vector<std::pair<int, int>>& others) const;
  // Highest OS CPU index of the machine + 1 (not only the process mask).
  int machine_cpus() const;
  std::string describe() const;

 private:
  hwloc_topology_t topo_ = nullptr;
  hwloc_bitmap_t saved_ = nullptr;
  std::vector<int> allowed_;
  bool synthetic_ = false;
};

}  // namespace joule::engine
