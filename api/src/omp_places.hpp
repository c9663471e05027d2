// The OpenMP place list on a machine: OMP_PLACES (or GOMP_CPU_AFFINITY)
// turned into sets of OS CPU numbers from an hwloc topology, each restricted
// to the CPUs the process may use. The topology is a parameter so that tests
// build places on synthetic machines ("pack:2 numa:2 core:8 pu:2").
#pragma once

#include <hwloc.h>

#include <string>
#include <vector>

#include "omp_place_list.hpp"

namespace joule::api {

// Place p's CPUs (OS numbers, ascending), in place-number order.
using PlaceList = std::vector<std::vector<int>>;

struct BuiltPlaces {
  PlaceList places;
  std::string note;  // why places were dropped or a name fell back, for a warning; "" if none
};

// The places `spec` names on `topo` (GOMP_CPU_AFFINITY's `gomp_cpus`, one
// place each, when `spec` is empty; threads when both are), restricted to
// `mask` (OS numbers); places left without CPUs are dropped. An abstract
// name's count keeps the first count places. Empty when no place has a CPU
// of the mask.
BuiltPlaces build_places(hwloc_topology_t topo, const PlaceSpec& spec,
                         const std::vector<int>& gomp_cpus, const std::vector<int>& mask);

}  // namespace joule::api
