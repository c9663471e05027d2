// Places from hwloc objects (abstract names) or from the explicit lists,
// each cut down to the process's CPUs. Objects are taken in hwloc's logical
// order, which is the order of the place numbers.
#include "omp_places.hpp"

#include <algorithm>
#include <memory>

namespace joule::api {
namespace {

using Bitmap = std::unique_ptr<hwloc_bitmap_s, decltype(&hwloc_bitmap_free)>;

Bitmap bitmap_of(const std::vector<int>& cpus) {
  Bitmap b(hwloc_bitmap_alloc(), &hwloc_bitmap_free);
  for (int c : cpus) hwloc_bitmap_set(b.get(), unsigned(c));
  return b;
}

std::vector<int> cpus_of(hwloc_const_bitmap_t set, hwloc_const_bitmap_t mask) {
  std::vector<int> out;
  for (int c = hwloc_bitmap_first(set); c >= 0; c = hwloc_bitmap_next(set, c))
    if (hwloc_bitmap_isset(mask, unsigned(c))) out.push_back(c);
  return out;
}

// The hwloc type an abstract name stands for: the last-level cache is the
// highest cache level the machine has. HWLOC_OBJ_TYPE_MAX: none there.
hwloc_obj_type_t type_of(hwloc_topology_t topo, PlaceKind kind) {
  auto present = [&](hwloc_obj_type_t t) { return hwloc_get_nbobjs_by_type(topo, t) > 0; };
  switch (kind) {
    case PlaceKind::cores:
      return present(HWLOC_OBJ_CORE) ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
    case PlaceKind::ll_caches:
      for (auto t : {HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L2CACHE,
                     HWLOC_OBJ_L1CACHE})
        if (present(t)) return t;
      return HWLOC_OBJ_TYPE_MAX;
    case PlaceKind::numa_domains:
      return present(HWLOC_OBJ_NUMANODE) ? HWLOC_OBJ_NUMANODE : HWLOC_OBJ_TYPE_MAX;
    case PlaceKind::sockets:
      return present(HWLOC_OBJ_PACKAGE) ? HWLOC_OBJ_PACKAGE : HWLOC_OBJ_TYPE_MAX;
    default:
      return HWLOC_OBJ_PU;
  }
}

BuiltPlaces abstract_places(hwloc_topology_t topo, const PlaceSpec& spec,
                            hwloc_const_bitmap_t mask) {
  BuiltPlaces out;
  const hwloc_obj_type_t type = type_of(topo, spec.kind);
  if (type == HWLOC_OBJ_TYPE_MAX) {
    // No such level (no cache or NUMA information): the machine is one place.
    out.note = "the machine has no level for this place name: one place holds every CPU";
    std::vector<int> all = cpus_of(hwloc_topology_get_topology_cpuset(topo), mask);
    if (!all.empty()) out.places.push_back(std::move(all));
    return out;
  }
  const int n = hwloc_get_nbobjs_by_type(topo, type);
  for (int i = 0; i < n; ++i) {
    hwloc_obj_t obj = hwloc_get_obj_by_type(topo, type, unsigned(i));
    std::vector<int> cpus = cpus_of(obj->cpuset, mask);
    if (!cpus.empty()) out.places.push_back(std::move(cpus));
    if (spec.count > 0 && int(out.places.size()) == spec.count) break;
  }
  return out;
}

BuiltPlaces listed_places(const PlaceList& listed, hwloc_const_bitmap_t mask) {
  BuiltPlaces out;
  for (const auto& place : listed) {
    std::vector<int> cpus;
    for (int c : place)
      if (hwloc_bitmap_isset(mask, unsigned(c))) cpus.push_back(c);
    if (!cpus.empty()) out.places.push_back(std::move(cpus));
  }
  if (out.places.size() < listed.size())
    out.note = std::to_string(listed.size() - out.places.size()) + " of " +
               std::to_string(listed.size()) +
               " places have no CPU of the process's mask and were dropped";
  return out;
}

}  // namespace

BuiltPlaces build_places(hwloc_topology_t topo, const PlaceSpec& spec,
                         const std::vector<int>& gomp_cpus, const std::vector<int>& mask) {
  const Bitmap m = bitmap_of(mask);
  if (spec.kind == PlaceKind::list) return listed_places(spec.places, m.get());
  if (spec.kind != PlaceKind::none) return abstract_places(topo, spec, m.get());
  if (gomp_cpus.empty())
    return abstract_places(topo, PlaceSpec{PlaceKind::threads, 0, {}}, m.get());
  PlaceList one_each;
  for (int c : gomp_cpus) one_each.push_back({c});
  return listed_places(one_each, m.get());
}

}  // namespace joule::api
