// OMP_PLACES and GCC's GOMP_CPU_AFFINITY as written, parsed at configuration
// time so that a bad value fails at start-up with the key's message. What the
// places are on this machine (hwloc, the process mask) is omp_places.cpp's.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace joule::api {

// OpenMP 5.x abstract place names, in the order of the allowed-values text.
enum class PlaceKind { none, list, threads, cores, ll_caches, numa_domains, sockets };

struct PlaceSpec {
  PlaceKind kind = PlaceKind::none;
  int count = 0;  // an abstract name's "(count)"; 0: every place
  // PlaceKind::list: each place's CPUs (OS numbers, ascending), in list
  // order, after the "!" exclusions.
  std::vector<std::vector<int>> places;

  bool empty() const { return kind == PlaceKind::none; }
};

// The allowed forms, for the key's message.
std::string place_forms();
// "threads", "cores(4)", "{0,1},{2,3}", "{0:4}:4:4", "{0:8},!{4:4}", "3,4" ...
// Empty (blanks only): PlaceKind::none. Throws std::invalid_argument naming
// what is wrong and where.
PlaceSpec parse_places(std::string_view text);
// "0 3 1-2 4-15:2" (blanks or commas between items): each CPU one place, in
// the given order. Throws std::invalid_argument.
std::vector<int> parse_gomp_cpu_affinity(std::string_view text);

}  // namespace joule::api
