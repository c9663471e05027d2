// The parallel-region entry points: GOMP_parallel, the old split form, and
// the combined parallel loops, whose members enter the loop before the body
// (GCC's outlined body starts with GOMP_loop_*_next), in both forms: the
// one-call GOMP_parallel_loop_* and the pre-4.9 GOMP_parallel_loop_*_start,
// after which the caller runs the body as the master, then GOMP_parallel_end.
#include <vector>

#include "ompt.hpp"
#include "team.hpp"

using namespace joule::omp;

namespace joule::omp {
namespace {

struct LoopRegion {
  void (*fn)(void*);
  void* data;
  int sched;
  std::uint64_t base, step, count, chunk;
};

void enter_loop(const LoopRegion& r) {
  std::uint64_t chunk = r.chunk;
  const int sched = resolve_sched(r.sched, &chunk);
  if (ompt::on()) ompt::work_open(ompt::kWorkLoop, r.count);
  ws_enter([&](WorkShare& w) {
    w.sched = sched;
    w.base = r.base;
    w.step = r.step;
    w.count = r.count;
    w.chunk = chunk;
  });
}

void loop_member(void* p) {
  auto* r = static_cast<LoopRegion*>(p);
  enter_loop(*r);
  r->fn(r->data);
}

// The pre-4.9 regions the calling thread runs now, innermost last: their
// member argument lives until GOMP_parallel_end (members read it).
struct LegacyRegion {
  Team* team;
  void* region;
  void (*release)(void*);
};
thread_local std::vector<LegacyRegion> t_legacy;

void end_legacy_region() {
  Team* t = self().team;
  finish_on_master();
  if (!t_legacy.empty() && t_legacy.back().team == t) {
    t_legacy.back().release(t_legacy.back().region);
    t_legacy.pop_back();
  }
}

}  // namespace

void start_legacy_region(void (*member)(void*), void* region, void (*release)(void*),
                         unsigned num_threads) {
  Team* t = begin_team(member, region, num_threads);
  start_on_master(t);
  t_legacy.push_back({t, region, release});
}

void parallel_loop(void (*fn)(void*), void* data, unsigned num_threads, int sched,
                   std::uint64_t base, std::uint64_t step, std::uint64_t count,
                   std::uint64_t chunk) {
  LoopRegion r{fn, data, sched, base, step, count, chunk};
  run_parallel(loop_member, &r, num_threads);
}

}  // namespace joule::omp

namespace {

void loop_region(void (*fn)(void*), void* data, unsigned n, int sched, long start, long end,
                 long incr, long chunk) {
  parallel_loop(fn, data, n, sched, std::uint64_t(start), std::uint64_t(incr),
                count_signed(start, end, incr), std::uint64_t(chunk));
}

// The master enters the loop too, then returns to run the body itself.
void legacy_loop_region(void (*fn)(void*), void* data, unsigned n, int sched, long start, long end,
                        long incr, long chunk) {
  auto* r = new LoopRegion{fn,
                           data,
                           sched,
                           std::uint64_t(start),
                           std::uint64_t(incr),
                           count_signed(start, end, incr),
                           std::uint64_t(chunk)};
  start_legacy_region(
      loop_member, r, [](void* p) { delete static_cast<LoopRegion*>(p); }, n);
  enter_loop(*r);
}

}  // namespace

extern "C" {

// flags carry proc_bind, which joule's bound workers make moot.
JOULE_EXPORT void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads,
                                unsigned /*flags*/) {
  run_parallel(fn, data, num_threads);
}

JOULE_EXPORT void GOMP_parallel_start(void (*fn)(void*), void* data, unsigned num_threads) {
  start_on_master(begin_team(fn, data, num_threads));
}

JOULE_EXPORT void GOMP_parallel_end(void) { end_legacy_region(); }

#define JOULE_PARALLEL_LOOP(name, kind)                                                          \
  JOULE_EXPORT void GOMP_parallel_loop_##name(void (*fn)(void*), void* data, unsigned n, long s, \
                                              long e, long i, long c, unsigned) {                \
    loop_region(fn, data, n, kind, s, e, i, c);                                                  \
  }

JOULE_PARALLEL_LOOP(static, kStatic)
JOULE_PARALLEL_LOOP(dynamic, kDynamic)
JOULE_PARALLEL_LOOP(guided, kGuided)
JOULE_PARALLEL_LOOP(nonmonotonic_dynamic, kDynamic)
JOULE_PARALLEL_LOOP(nonmonotonic_guided, kGuided)

#define JOULE_PARALLEL_LOOP_RUNTIME(name)                                                        \
  JOULE_EXPORT void GOMP_parallel_loop_##name(void (*fn)(void*), void* data, unsigned n, long s, \
                                              long e, long i, unsigned) {                        \
    loop_region(fn, data, n, kRuntime, s, e, i, 0);                                              \
  }

JOULE_PARALLEL_LOOP_RUNTIME(runtime)
JOULE_PARALLEL_LOOP_RUNTIME(nonmonotonic_runtime)
JOULE_PARALLEL_LOOP_RUNTIME(maybe_nonmonotonic_runtime)

#define JOULE_LEGACY_LOOP(name, kind)                                                            \
  JOULE_EXPORT void GOMP_parallel_loop_##name##_start(void (*fn)(void*), void* data, unsigned n, \
                                                      long s, long e, long i, long c) {          \
    legacy_loop_region(fn, data, n, kind, s, e, i, c);                                           \
  }

JOULE_LEGACY_LOOP(static, kStatic)
JOULE_LEGACY_LOOP(dynamic, kDynamic)
JOULE_LEGACY_LOOP(guided, kGuided)

JOULE_EXPORT void GOMP_parallel_loop_runtime_start(void (*fn)(void*), void* data, unsigned n,
                                                   long s, long e, long i) {
  legacy_loop_region(fn, data, n, kRuntime, s, e, i, 0);
}

}  // extern "C"
