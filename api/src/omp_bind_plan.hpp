// OMP_PROC_BIND over the places, onto joule's workers. The outer team's
// threads go to places by OpenMP's rules for close, spread and primary; each
// thread (a worker) then gets one CPU of its place, distinct from the other
// workers' while any CPU is free, so binding never leaves CPUs of the mask
// idle. joule's workers are one per CPU: the plan says which CPUs
// (JOULE_CPUS) and how many workers (JOULE_WORKERS) to start.
#pragma once

#include <string>
#include <vector>

#include "omp_places.hpp"
#include "omp_settings.hpp"

namespace joule::api {

// A thread's place and its place partition: part_len consecutive places
// from part_first, wrapping around the place list.
struct ThreadPlace {
  int place = -1;
  int part_first = 0;
  int part_len = 0;
};

// OpenMP's assignment of a team of `threads` to `num_places` places whose
// primary thread is on place `primary`, the parent's partition being every
// place. Where OpenMP leaves the choice open (which places or subpartitions
// get one more), the first ones from the primary's do, as in libgomp.
// OmpBind::on is close; OmpBind::off gives place -1.
std::vector<ThreadPlace> assign_places(OmpBind bind, int threads, int num_places, int primary = 0);

// One CPU per thread: the first CPU of its place no earlier thread took; with
// none left there, the first free CPU of the places after it (the thread then
// counts as on that place); with no CPU free anywhere, the least used of its
// place. Returns the CPUs; updates `threads` for the moved ones.
std::vector<int> pick_cpus(const PlaceList& places, std::vector<ThreadPlace>& threads);

struct BindPlan {
  PlaceList places;                 // empty: threads are not bound to places
  std::vector<OmpBind> binds;       // bind-var per nesting level (the last one repeats)
  int workers = 0;                  // JOULE_WORKERS to start with; 0: one per CPU of `cpus`
  std::vector<int> cpus;            // JOULE_CPUS (ascending); empty: the mask, as joule does
  std::vector<ThreadPlace> of_cpu;  // indexed by CPU: the place of the worker there
  std::string note;                 // a warning for the user; "" if none
};

// The plan for settings `o`, JOULE_WORKERS `workers` and JOULE_CPUS
// `joule_cpus` (0 and empty: not set) on `topo`, within `mask`.
BindPlan make_bind_plan(hwloc_topology_t topo, const OmpSettings& o, int workers,
                        const std::vector<int>& joule_cpus, const std::vector<int>& mask);

}  // namespace joule::api
