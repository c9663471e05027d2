#include "topology.hpp"

#include <numa.h>
#include <sched.h>

#include <algorithm>
#include <stdexcept>

namespace joule::engine {

Topology::Topology(const char* synthetic) {
  if (hwloc_topology_init(&topo_) != 0 ||
      (synthetic && hwloc_topology_set_synthetic(topo_, synthetic) != 0) ||
      hwloc_topology_load(topo_) != 0)
    throw std::runtime_error("joule: hwloc could not load the machine topology");
  if (synthetic) {
    synthetic_ = true;
    hwloc_const_bitmap_t all = hwloc_topology_get_topology_cpuset(topo_);
    for (int c = hwloc_bitmap_first(all); c >= 0; c = hwloc_bitmap_next(all, c))
      allowed_.push_back(c);
    return;
  }
  // The process mask, not the whole machine: `taskset -c 0 app` gives one CPU.
  hwloc_bitmap_t mask = hwloc_bitmap_alloc();
  if (hwloc_get_cpubind(topo_, mask, HWLOC_CPUBIND_PROCESS) != 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    sched_getaffinity(0, sizeof(set), &set);
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) hwloc_bitmap_set(mask, unsigned(c));
  }
  for (int c = hwloc_bitmap_first(mask); c >= 0; c = hwloc_bitmap_next(mask, c))
    allowed_.push_back(c);
  hwloc_bitmap_free(mask);
  if (allowed_.empty()) allowed_.push_back(0);
}

Topology::~Topology() {
  if (saved_) hwloc_bitmap_free(saved_);
  hwloc_topology_destroy(topo_);
}

bool Topology::bind_current_thread(int cpu) const {
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  hwloc_bitmap_only(set, unsigned(cpu));
  const bool ok = hwloc_set_cpubind(topo_, set, HWLOC_CPUBIND_THREAD) == 0;
  hwloc_bitmap_free(set);
  return ok;
}

void Topology::save_current_binding() {
  if (!saved_) saved_ = hwloc_bitmap_alloc();
  if (hwloc_get_cpubind(topo_, saved_, HWLOC_CPUBIND_THREAD) != 0) {
    hwloc_bitmap_free(saved_);
    saved_ = nullptr;
  }
}

void Topology::restore_current_binding() {
  if (saved_) hwloc_set_cpubind(topo_, saved_, HWLOC_CPUBIND_THREAD);
}

int Topology::machine_cpus() const {
  const int last = hwloc_bitmap_last(hwloc_topology_get_complete_cpuset(topo_));
  return last < 0 ? int(allowed_.size()) : last + 1;
}

int Topology::numa_node_of(int cpu) const {
  hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo_, unsigned(cpu));
  if (pu && pu->nodeset && !hwloc_bitmap_iszero(pu->nodeset))
    return hwloc_bitmap_first(pu->nodeset);
  if (synthetic_ || numa_available() < 0) return 0;
  const int node = numa_node_of_cpu(cpu);
  return node < 0 ? 0 : node;
}

int Topology::numa_nodes() const {
  return std::max(1, hwloc_get_nbobjs_by_type(topo_, HWLOC_OBJ_NUMANODE));
}

std::string Topology::describe() const {
  const int packages = hwloc_get_nbobjs_by_type(topo_, HWLOC_OBJ_PACKAGE);
  const int cores = hwloc_get_nbobjs_by_type(topo_, HWLOC_OBJ_CORE);
  const int pus = hwloc_get_nbobjs_by_type(topo_, HWLOC_OBJ_PU);
  const int numa = numa_nodes();
  return std::to_string(packages) + " package(s), " + std::to_string(cores) + " core(s), " +
         std::to_string(pus) + " PU(s), " + std::to_string(numa) + " NUMA node(s)";
}

}  // namespace joule::engine
