// Worksharing loops over `long` (GOMP_loop_*): every schedule, the ordered
// forms, the generic GCC 9+ entry (GOMP_loop_start) and the ends. The
// dealing itself is in worksharing.cpp.
#include "ompt.hpp"
#include "team.hpp"

using namespace joule::omp;

namespace {

bool start_long(int sched, long start, long end, long incr, long chunk, long* istart, long* iend,
                std::uintptr_t* reductions = nullptr) {
  std::uint64_t lo = 0, hi = 0;
  const bool got =
      loop_begin(sched, std::uint64_t(start), std::uint64_t(incr), count_signed(start, end, incr),
                 std::uint64_t(chunk), &lo, &hi, reductions);
  // Without istart (a static loop with reduction(task, ...) that computes
  // its own iterations) the call only enters the construct.
  if (istart) *istart = long(lo);
  if (iend) *iend = long(hi);
  return got;
}

bool next_long(long* istart, long* iend) {
  std::uint64_t lo = 0, hi = 0;
  const bool got = loop_next(&lo, &hi);
  *istart = long(lo);
  *iend = long(hi);
  return got;
}

bool generic_start(long start, long end, long incr, long sched, long chunk, long* istart,
                   long* iend, std::uintptr_t* reductions, void** mem) {
  const bool got = start_long(int(sched), start, end, incr, chunk, istart, iend, reductions);
  if (mem) share_mem(mem);
  return got;
}

}  // namespace

extern "C" {

#define JOULE_LOOP_KIND(name, kind)                                                              \
  JOULE_EXPORT bool GOMP_loop_##name##_start(long s, long e, long i, long c, long* a, long* b) { \
    return start_long(kind, s, e, i, c, a, b);                                                   \
  }                                                                                              \
  JOULE_EXPORT bool GOMP_loop_##name##_next(long* a, long* b) { return next_long(a, b); }        \
  JOULE_EXPORT bool GOMP_loop_ordered_##name##_start(long s, long e, long i, long c, long* a,    \
                                                     long* b) {                                  \
    return start_long(kind, s, e, i, c, a, b);                                                   \
  }                                                                                              \
  JOULE_EXPORT bool GOMP_loop_ordered_##name##_next(long* a, long* b) { return next_long(a, b); }

JOULE_LOOP_KIND(static, kStatic)
JOULE_LOOP_KIND(dynamic, kDynamic)
JOULE_LOOP_KIND(guided, kGuided)

JOULE_EXPORT bool GOMP_loop_nonmonotonic_dynamic_start(long s, long e, long i, long c, long* a,
                                                       long* b) {
  return start_long(kDynamic, s, e, i, c, a, b);
}
JOULE_EXPORT bool GOMP_loop_nonmonotonic_dynamic_next(long* a, long* b) { return next_long(a, b); }
JOULE_EXPORT bool GOMP_loop_nonmonotonic_guided_start(long s, long e, long i, long c, long* a,
                                                      long* b) {
  return start_long(kGuided, s, e, i, c, a, b);
}
JOULE_EXPORT bool GOMP_loop_nonmonotonic_guided_next(long* a, long* b) { return next_long(a, b); }

#define JOULE_LOOP_RUNTIME(name)                                                         \
  JOULE_EXPORT bool GOMP_loop_##name##_start(long s, long e, long i, long* a, long* b) { \
    return start_long(kRuntime, s, e, i, 0, a, b);                                       \
  }                                                                                      \
  JOULE_EXPORT bool GOMP_loop_##name##_next(long* a, long* b) { return next_long(a, b); }

JOULE_LOOP_RUNTIME(runtime)
JOULE_LOOP_RUNTIME(nonmonotonic_runtime)
JOULE_LOOP_RUNTIME(maybe_nonmonotonic_runtime)
JOULE_LOOP_RUNTIME(ordered_runtime)

JOULE_EXPORT bool GOMP_loop_start(long start, long end, long incr, long sched, long chunk,
                                  long* istart, long* iend, std::uintptr_t* reductions,
                                  void** mem) {
  return generic_start(start, end, incr, sched, chunk, istart, iend, reductions, mem);
}

JOULE_EXPORT bool GOMP_loop_ordered_start(long start, long end, long incr, long sched, long chunk,
                                          long* istart, long* iend, std::uintptr_t* reductions,
                                          void** mem) {
  return generic_start(start, end, incr, sched, chunk, istart, iend, reductions, mem);
}

JOULE_EXPORT void GOMP_loop_end(void) {
  if (ompt::on()) ompt::work_close();
  ws_leave();
  barrier();
}
JOULE_EXPORT void GOMP_loop_end_nowait(void) {
  if (ompt::on()) ompt::work_close();
  ws_leave();
}
JOULE_EXPORT bool GOMP_loop_end_cancel(void) {
  GOMP_loop_end();
  return false;
}

}  // extern "C"
