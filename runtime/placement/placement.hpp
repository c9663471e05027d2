// Thread placement on the many-core card with the semantics of the Intel /
// LLVM OpenMP runtime's KMP_AFFINITY (granularity=fine: one PU per thread):
//
//   compact   fill every context of a core before the next core;
//   scatter   one thread per core round-robin (across packages first), and
//             only then a second context on each core;
//   balanced  (MIC) the per-core counts of scatter, but consecutive thread
//             ids on the same core, so neighbours share L1/L2.
//
// `permute` reorders which topology levels are most significant (compact
// and scatter only); `offset` rotates the start of the sorted PU list. Used
// by joule-ctl card-map, joule-advisor and, later, the emulated card.
// Namespace card_affinity: joule::placement is the public memory placement
// of <joule/memory.hpp>.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "card_topology.hpp"

namespace joule::card_affinity {

enum class Affinity { compact, scatter, balanced };

// "compact" | "scatter" | "balanced"; anything else throws PlacementError
// naming the allowed values.
Affinity parse_affinity(std::string_view name);
const char* affinity_name(Affinity a);
inline constexpr const char* kAffinityNames = "compact, scatter, balanced";

struct PlacementOptions {
  Affinity affinity = Affinity::compact;
  int permute = 0;  // 0 .. levels-1 (levels: package, core, context)
  int offset = 0;   // >= 0, taken modulo the number of PUs
};

// KMP_AFFINITY's "type[,permute[,offset]]", e.g. "scatter", "compact,1" or
// "compact,0,4" (only the placement part: no granularity or modifiers).
// Throws PlacementError naming the form for anything else; the ranges are
// checked by place_threads, which knows the topology.
PlacementOptions parse_placement(std::string_view spec);
// The canonical spec: the type alone when permute and offset are 0.
std::string placement_spec(const PlacementOptions& options);
inline constexpr const char* kPlacementForm =
    "compact, scatter or balanced, optionally followed by ,permute[,offset] (integers >= 0)";

// thread id -> PU slot, for threads 0..threads-1. Throws PlacementError when
// threads is not in 1..pu_count or an option is out of range.
std::vector<PuSlot> place_threads(const CardTopology& topo, int threads,
                                  const PlacementOptions& options);

// Threads on each core (indexed by core logical index) under a placement.
std::vector<int> threads_per_core(const CardTopology& topo, const std::vector<PuSlot>& map);

// "thread <t> core <c> pu <p>": the line joule-ctl card-map prints.
std::string map_line(int thread, const PuSlot& slot);
// The KMP_AFFINITY=verbose form: "thread <t> bound to OS proc set {p}
// (package <k> core <c> thread <x>)".
std::string verbose_line(int thread, const PuSlot& slot);

}  // namespace joule::card_affinity
