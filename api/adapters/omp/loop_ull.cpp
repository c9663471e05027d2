// Worksharing loops over `unsigned long long` (GOMP_loop_ull_*): the same
// schedules as loop.cpp; `up` says which way the loop runs (a downward
// loop's step arrives as a wrapped negative number).
#include "team.hpp"

using namespace joule::omp;

using ull = unsigned long long;

namespace {

bool start_ull(int sched, bool up, ull start, ull end, ull incr, ull chunk, ull* istart, ull* iend,
               std::uintptr_t* reductions = nullptr) {
  std::uint64_t lo = 0, hi = 0;
  const bool got = loop_begin(sched, start, incr, count_unsigned(up, start, end, incr), chunk, &lo,
                              &hi, reductions);
  if (istart) *istart = lo;  // null: the call only enters the construct (loop.cpp)
  if (iend) *iend = hi;
  return got;
}

bool next_ull(ull* istart, ull* iend) {
  std::uint64_t lo = 0, hi = 0;
  const bool got = loop_next(&lo, &hi);
  *istart = lo;
  *iend = hi;
  return got;
}

// GOMP_loop_ull_start and _ordered_start (GCC 9+): `mem` as in loop.cpp.
bool generic_ull(bool up, ull start, ull end, ull incr, long sched, ull chunk, ull* istart,
                 ull* iend, std::uintptr_t* reductions, void** mem) {
  const bool got = start_ull(int(sched), up, start, end, incr, chunk, istart, iend, reductions);
  if (mem) share_mem(mem);
  return got;
}

}  // namespace

extern "C" {

#define JOULE_ULL_KIND(name, kind)                                                            \
  JOULE_EXPORT bool GOMP_loop_ull_##name##_start(bool up, ull s, ull e, ull i, ull c, ull* a, \
                                                 ull* b) {                                    \
    return start_ull(kind, up, s, e, i, c, a, b);                                             \
  }                                                                                           \
  JOULE_EXPORT bool GOMP_loop_ull_##name##_next(ull* a, ull* b) { return next_ull(a, b); }

JOULE_ULL_KIND(static, kStatic)
JOULE_ULL_KIND(dynamic, kDynamic)
JOULE_ULL_KIND(guided, kGuided)
JOULE_ULL_KIND(nonmonotonic_dynamic, kDynamic)
JOULE_ULL_KIND(nonmonotonic_guided, kGuided)
JOULE_ULL_KIND(ordered_static, kStatic)
JOULE_ULL_KIND(ordered_dynamic, kDynamic)
JOULE_ULL_KIND(ordered_guided, kGuided)

#define JOULE_ULL_RUNTIME(name)                                                                  \
  JOULE_EXPORT bool GOMP_loop_ull_##name##_start(bool up, ull s, ull e, ull i, ull* a, ull* b) { \
    return start_ull(kRuntime, up, s, e, i, 0, a, b);                                            \
  }                                                                                              \
  JOULE_EXPORT bool GOMP_loop_ull_##name##_next(ull* a, ull* b) { return next_ull(a, b); }

JOULE_ULL_RUNTIME(runtime)
JOULE_ULL_RUNTIME(nonmonotonic_runtime)
JOULE_ULL_RUNTIME(maybe_nonmonotonic_runtime)
JOULE_ULL_RUNTIME(ordered_runtime)

JOULE_EXPORT bool GOMP_loop_ull_start(bool up, ull start, ull end, ull incr, long sched, ull chunk,
                                      ull* istart, ull* iend, std::uintptr_t* reductions,
                                      void** mem) {
  return generic_ull(up, start, end, incr, sched, chunk, istart, iend, reductions, mem);
}

JOULE_EXPORT bool GOMP_loop_ull_ordered_start(bool up, ull start, ull end, ull incr, long sched,
                                              ull chunk, ull* istart, ull* iend,
                                              std::uintptr_t* reductions, void** mem) {
  return generic_ull(up, start, end, incr, sched, chunk, istart, iend, reductions, mem);
}

}  // extern "C"
