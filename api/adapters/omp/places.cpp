// The places and binding of libjoule-omp: libjoule builds them once, before
// joule starts (joule_omp_make_affinity), and places each worker on one CPU
// of its place. A thread's place is the place of the CPU its worker is bound
// to, read from its affinity mask, since a team member runs on whichever
// worker starts it. The omp_* place queries are here.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "affinity.hpp"
#include "joule/omp/omp.h"
#include "team.hpp"

namespace joule::omp {
namespace {

AffinityIcv g_affinity;

std::vector<int> cpus_of_thread(pid_t tid) {
  cpu_set_t set;
  std::vector<int> cpus;
  if (sched_getaffinity(tid, sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

// The calling thread's partition: its worker's inside a region, every place
// outside (the initial thread's).
int partition(int* first) {
  int part_first = 0, part_len = g_affinity.num_places;
  if (current_team()->level > 0) {
    int f = 0, len = 0;
    if (current_place(&f, &len) >= 0) part_first = f, part_len = len;
  }
  *first = part_first;
  return part_len;
}

}  // namespace

AffinityIcv& affinity() {
  ensure_init();
  return g_affinity;
}

joule_omp_affinity_t load_affinity() {
  // The main thread's mask, libgomp's binding undone: what the workers may use.
  const std::vector<int> mask = cpus_of_thread(getpid());
  joule_omp_affinity_t a{};
  a.struct_size = sizeof a;
  if (joule_omp_make_affinity(mask.data(), int(mask.size()), &a) != JOULE_OK)
    fail_start("the OpenMP places could not be built (hwloc could not load the topology)");
  if (*a.note) std::fprintf(stderr, "libjoule-omp: OMP_PLACES: %s\n", a.note);
  g_affinity.num_places = a.num_places;
  g_affinity.bind_levels = std::max(a.bind_levels, 1);
  std::copy(a.bind, a.bind + 8, g_affinity.bind);
  g_affinity.num_procs = std::max(int(original_cpus().size()), 1);
  g_affinity.display = a.display_affinity != 0;
  set_affinity_format(a.affinity_format);
  return a;
}

int current_place(int* part_first, int* part_len) {
  if (g_affinity.num_places == 0) return -1;
  const std::vector<int> cpus = cpus_of_thread(0);
  if (cpus.size() != 1) return -1;  // not bound to one CPU: not a bound worker
  return joule_omp_cpu_place(cpus[0], part_first, part_len);
}

int bind_at(int level) {
  const AffinityIcv& a = affinity();
  return a.bind[std::clamp(level, 0, a.bind_levels - 1)];
}

}  // namespace joule::omp

using namespace joule::omp;

extern "C" {

JOULE_EXPORT int omp_get_num_procs(void) { return affinity().num_procs; }
JOULE_EXPORT int omp_get_proc_bind(void) { return bind_at(current_team()->level); }
JOULE_EXPORT int omp_get_num_places(void) { return affinity().num_places; }

JOULE_EXPORT int omp_get_place_num_procs(int place) {
  ensure_init();
  return std::max(joule_omp_place_cpus(place, nullptr, 0), 0);
}

JOULE_EXPORT void omp_get_place_proc_ids(int place, int* ids) {
  ensure_init();
  const int n = joule_omp_place_cpus(place, nullptr, 0);
  if (n > 0 && ids) joule_omp_place_cpus(place, ids, n);
}

JOULE_EXPORT int omp_get_place_num(void) {
  ensure_init();
  return current_place(nullptr, nullptr);
}

JOULE_EXPORT int omp_get_partition_num_places(void) {
  ensure_init();
  int first = 0;
  return partition(&first);
}

JOULE_EXPORT void omp_get_partition_place_nums(int* place_nums) {
  ensure_init();
  int first = 0;
  const int n = partition(&first);
  for (int i = 0; i < n && place_nums; ++i) place_nums[i] = (first + i) % g_affinity.num_places;
}

}  // extern "C"
