#include "card_topology.hpp"

#include <hwloc.h>

#include <algorithm>
#include <map>
#include <memory>

#include "text.hpp"

namespace joule::card_affinity {
namespace {

using TopologyPtr = std::unique_ptr<hwloc_topology, decltype(&hwloc_topology_destroy)>;

TopologyPtr load_synthetic(const std::string& description) {
  // Counted before hwloc builds it: hwloc would build every object.
  const auto pus = core::synthetic_pu_count(description, kMaxCardPus);
  if (pus > std::uint64_t(kMaxCardPus))
    throw PlacementError("topology '" + core::escape_text(description) + "' has more than " +
                         std::to_string(kMaxCardPus) + " PUs; allowed: 1.." +
                         std::to_string(kMaxCardPus) + " PUs (cores x PUs per core x packages)");
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) throw PlacementError("hwloc: cannot create a topology");
  TopologyPtr topo(raw, &hwloc_topology_destroy);
  if (description.empty() || hwloc_topology_set_synthetic(raw, description.c_str()) != 0)
    throw PlacementError("bad topology '" + core::escape_text(description) +
                         "': expected an hwloc synthetic description such as "
                         "'package:1 core:60 pu:4'");
  if (hwloc_topology_load(raw) != 0)
    throw PlacementError("hwloc could not load topology '" + core::escape_text(description) + "'");
  return topo;
}

// Every PU with the labels of the core and package above it. A description
// without a core level makes each PU its own core, as OpenMP runtimes do.
std::vector<PuSlot> read_pus(hwloc_topology_t topo) {
  std::vector<PuSlot> pus;
  std::map<int, int> ctx_in_core, cores_in_pkg;
  std::map<int, int> core_rank;  // core logical index -> rank inside its package
  const int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
  for (int i = 0; i < n; ++i) {
    hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, static_cast<unsigned>(i));
    hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
    hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu);
    PuSlot s;
    s.pu = static_cast<int>(pu->logical_index);
    s.package = pkg ? static_cast<int>(pkg->logical_index) : 0;
    s.core = core ? static_cast<int>(core->logical_index) : s.pu;
    if (!core_rank.count(s.core)) core_rank[s.core] = cores_in_pkg[s.package]++;
    s.core_in_pkg = core_rank[s.core];
    s.ctx = ctx_in_core[s.core]++;
    pus.push_back(s);
  }
  return pus;
}

}  // namespace

CardTopology::CardTopology(std::vector<PuSlot> pus, std::string description)
    : pus_(std::move(pus)), description_(std::move(description)) {
  std::map<int, int> per_core;
  for (const PuSlot& s : pus_) {
    ++per_core[s.core];
    packages_ = std::max(packages_, s.package + 1);
  }
  cores_ = static_cast<int>(per_core.size());
  uniform_ctx_ = per_core.empty() ? 0 : per_core.begin()->second;
  for (const auto& [core, count] : per_core)
    if (count != uniform_ctx_) uniform_ctx_ = 0;
}

CardTopology CardTopology::from_synthetic(const std::string& description) {
  TopologyPtr topo = load_synthetic(description);
  std::vector<PuSlot> pus = read_pus(topo.get());
  if (pus.empty()) throw PlacementError("topology '" + description + "' has no PUs");
  return CardTopology(std::move(pus), description);
}

CardTopology CardTopology::uniform(int packages, int cores_per_package, int pus_per_core) {
  if (packages < 1 || cores_per_package < 1 || pus_per_core < 1)
    throw PlacementError("a uniform topology needs at least 1 package, core and PU per core");
  if (std::int64_t(packages) * cores_per_package * pus_per_core > kMaxCardPus)
    throw PlacementError("a uniform topology of more than " + std::to_string(kMaxCardPus) +
                         " PUs; allowed: 1.." + std::to_string(kMaxCardPus));
  std::vector<PuSlot> pus;
  for (int p = 0; p < packages; ++p)
    for (int c = 0; c < cores_per_package; ++c)
      for (int x = 0; x < pus_per_core; ++x) {
        const int core = p * cores_per_package + c;
        pus.push_back({p, core, c, x, core * pus_per_core + x});
      }
  return CardTopology(std::move(pus), "package:" + std::to_string(packages) +
                                          " core:" + std::to_string(cores_per_package) +
                                          " pu:" + std::to_string(pus_per_core));
}

}  // namespace joule::card_affinity
