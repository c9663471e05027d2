// libjoule-omp's place queries and affinity display, C and Fortran names,
// called directly: OMP_PROC_BIND=spread,close and OMP_PLACES=threads are set
// before the first OpenMP call starts joule, so each worker is on a place of
// its own (one per CPU of the mask).
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "joule/omp/omp.h"

// The GOMP entry and the Fortran names, which no C header declares.
extern "C" {
void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags);
int omp_get_num_places_(void);
int omp_get_place_num_procs_(const std::int32_t*);
void omp_get_place_proc_ids_8_(const std::int64_t*, std::int64_t*);
void omp_get_partition_place_nums_(std::int32_t*);
void omp_set_affinity_format_(const char*, size_t);
int omp_get_affinity_format_(char*, size_t);
int omp_capture_affinity_(char*, const char*, size_t, size_t);
}

namespace {

int mask_cpus() {
  cpu_set_t set;
  sched_getaffinity(0, sizeof set, &set);
  return CPU_COUNT(&set);
}

// Before main: libjoule-omp reads the configuration at the first OpenMP call.
const int g_cpus = [] {
  setenv("OMP_PROC_BIND", "spread,close", 1);
  setenv("OMP_PLACES", "threads", 1);
  setenv("OMP_AFFINITY_FORMAT", "T%n/%N", 1);
  return mask_cpus();
}();

struct Member {
  int place, bind, part_len, part_first, team;
};

TEST(GompAffinity, PlacesAreTheMasksCpus) {
  ASSERT_EQ(omp_get_num_places(), g_cpus);
  EXPECT_EQ(omp_get_num_procs(), g_cpus);
  std::set<int> cpus;
  for (int p = 0; p < g_cpus; ++p) {
    ASSERT_EQ(omp_get_place_num_procs(p), 1);
    int id = -1;
    omp_get_place_proc_ids(p, &id);
    cpus.insert(id);
  }
  EXPECT_EQ(int(cpus.size()), g_cpus);
  EXPECT_EQ(omp_get_place_num_procs(g_cpus), 0);
  EXPECT_EQ(omp_get_place_num_procs(-1), 0);
  EXPECT_EQ(omp_get_proc_bind(), 4);  // spread
  EXPECT_EQ(omp_get_place_num(), 0);  // the initial thread is worker 0
  EXPECT_EQ(omp_get_partition_num_places(), g_cpus);
}

TEST(GompAffinity, MembersSpreadOverThePlaces) {
  static std::vector<Member> seen;
  static std::mutex m;
  seen.clear();
  GOMP_parallel(
      [](void*) {
        int first = -1;
        const int len = omp_get_partition_num_places();
        if (len > 0) omp_get_partition_place_nums(&first);
        std::lock_guard g(m);
        seen.push_back(
            {omp_get_place_num(), omp_get_proc_bind(), len, first, omp_get_num_threads()});
      },
      nullptr, 0, 0);
  ASSERT_EQ(int(seen.size()), g_cpus);
  std::set<int> places;
  for (const Member& s : seen) {
    EXPECT_EQ(s.bind, 3);      // the second level of the list: close
    EXPECT_EQ(s.part_len, 1);  // spread, one place each
    EXPECT_EQ(s.part_first, s.place);
    places.insert(s.place);
  }
  EXPECT_EQ(int(places.size()), g_cpus);
}

TEST(GompAffinity, FormatCaptureAndDisplay) {
  char buf[64];
  EXPECT_EQ(omp_get_affinity_format(buf, sizeof buf), 6u);
  EXPECT_STREQ(buf, "T%n/%N");
  EXPECT_EQ(omp_capture_affinity(buf, sizeof buf, nullptr), 4u);
  EXPECT_STREQ(buf, "T0/1");
  EXPECT_EQ(omp_capture_affinity(buf, 3, "%P"), std::to_string(getpid()).size());
  EXPECT_EQ(std::string(buf), std::to_string(getpid()).substr(0, 2));  // cut, NUL-ended
  omp_set_affinity_format("L%L A%A");
  EXPECT_GE(omp_capture_affinity(buf, sizeof buf, ""), 5u);
  EXPECT_EQ(std::string(buf).substr(0, 4), "L0 A");
  EXPECT_EQ(std::string(buf).find_first_of(",-"), std::string::npos);  // worker 0's one CPU
  EXPECT_EQ(omp_get_affinity_format(nullptr, 0), 7u);
}

TEST(GompAffinity, FortranNames) {
  EXPECT_EQ(omp_get_num_places_(), g_cpus);
  const std::int32_t zero = 0;
  EXPECT_EQ(omp_get_place_num_procs_(&zero), 1);
  const std::int64_t last = g_cpus - 1;
  std::int64_t id = -1;
  omp_get_place_proc_ids_8_(&last, &id);
  EXPECT_GE(id, 0);
  std::vector<std::int32_t> nums(std::size_t(g_cpus), -1);
  omp_get_partition_place_nums_(nums.data());
  EXPECT_EQ(nums.back(), g_cpus - 1);
  omp_set_affinity_format_("n=%n   ", 7);  // a blank-padded Fortran string
  char out[10];
  EXPECT_EQ(omp_get_affinity_format_(out, sizeof out), 4);
  EXPECT_EQ(std::string(out, sizeof out), "n=%n      ");
  EXPECT_EQ(omp_capture_affinity_(out, "N=%N  ", 4, 6), 3);
  EXPECT_EQ(std::string(out, 4), "N=1 ");
}

}  // namespace
