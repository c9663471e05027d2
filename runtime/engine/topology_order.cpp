// Topology: the orders that follow the machine's shape: which CPUs workers
// take first, and which victims a thief looks at first.
#include <algorithm>
#include <map>
#include <tuple>

#include "topology.hpp"

namespace joule::engine {

using queues::StealDistance;

StealDistance Topology::distance(int cpu_a, int cpu_b) const {
  hwloc_obj_t a = hwloc_get_pu_obj_by_os_index(topo_, unsigned(cpu_a));
  hwloc_obj_t b = hwloc_get_pu_obj_by_os_index(topo_, unsigned(cpu_b));
  if (!a || !b) return StealDistance::any;
  if (a == b) return StealDistance::sibling;  // two workers on one CPU
  hwloc_obj_t common = hwloc_get_common_ancestor_obj(topo_, a, b);
  if (common->type == HWLOC_OBJ_CORE) return StealDistance::sibling;
  if (hwloc_obj_type_is_cache(common->type)) return StealDistance::cache;
  // Memory is attached above the CPUs (hwloc 2): one node below the common
  // ancestor means both CPUs are on it.
  if (common->nodeset && hwloc_bitmap_weight(common->nodeset) == 1) return StealDistance::node;
  for (hwloc_obj_t o = common; o; o = o->parent)
    if (o->type == HWLOC_OBJ_PACKAGE) return StealDistance::package;
  return StealDistance::any;
}

std::vector<int> Topology::worker_order(const std::vector<int>& cpus) const {
  // Key: (rank of the PU within its core, logical index of the core, PU's).
  std::vector<std::tuple<int, int, int, int>> keyed;
  for (int cpu : cpus) {
    hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo_, unsigned(cpu));
    if (!pu) {
      keyed.emplace_back(0, 1 << 30, cpu, cpu);
      continue;
    }
    hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo_, HWLOC_OBJ_CORE, pu);
    int rank = 0;
    if (core)
      for (hwloc_obj_t p =
               hwloc_get_next_obj_inside_cpuset_by_type(topo_, core->cpuset, HWLOC_OBJ_PU, nullptr);
           p && p != pu;
           p = hwloc_get_next_obj_inside_cpuset_by_type(topo_, core->cpuset, HWLOC_OBJ_PU, p))
        if (std::find(cpus.begin(), cpus.end(), int(p->os_index)) != cpus.end()) ++rank;
    keyed.emplace_back(rank, core ? int(core->logical_index) : int(pu->logical_index),
                       int(pu->logical_index), cpu);
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<int> out;
  out.reserve(keyed.size());
  for (const auto& k : keyed) out.push_back(std::get<3>(k));
  return out;
}

queues::VictimOrder::Levels Topology::victim_levels(
    int cpu, const std::vector<std::pair<int, int>>& others) const {
  std::map<StealDistance, std::vector<int>> by_distance;
  for (const auto& [worker, other_cpu] : others) {
    const StealDistance d = distance(cpu, other_cpu);
    if (d != StealDistance::any) by_distance[d].push_back(worker);
  }
  // Everything further is the random window over all shards (VictimOrder).
  queues::VictimOrder::Levels levels;
  for (auto& [d, victims] : by_distance) levels.push_back({d, std::move(victims)});
  return levels;
}

}  // namespace joule::engine
