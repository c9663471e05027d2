// Worksharing loops in the LLVM runtime ABI. Bounds arrive inclusive
// ([lower, upper], step incr) in 32- or 64-bit, signed or unsigned
// variables. Static schedules are computed here from the team and the
// thread number, as GCC computes them inline (same blocks as
// worksharing.cpp deals); dynamic, guided, runtime and ordered loops take
// the team's next worksharing construct and its chunks (ws_enter, ws_next),
// as GOMP_loop_start does.
#include <algorithm>
#include <type_traits>

#include "kmpc.hpp"
#include "ompt.hpp"

extern "C" {
void GOMP_ordered_start(void);
void GOMP_ordered_end(void);
}

namespace joule::omp::kmp {
namespace {

constexpr int kModifiers = (1 << 29) | (1 << 30);  // monotonic, nonmonotonic

// Schedule numbers of the ABI (enum sched_type): unordered 33.., ordered 65..,
// distribute 91 and 92.
int to_sched(int kind, std::uint64_t* chunk, bool* known) {
  kind &= ~kModifiers;
  if (kind > 64 && kind < 72) kind -= 32;  // ordered: the same dealing, plus GOMP_ordered_*
  *known = true;
  switch (kind) {
    case 33:
    case 91:
      return kStatic;  // chunked
    case 34:
    case 40:
    case 41:
    case 45:
    case 92:
      *chunk = 0;
      return kStatic;
    case 35:
    case 44:
      return kDynamic;
    case 36:
    case 39:
    case 42:
    case 43:
    case 46:
      return kGuided;
    case 37:
    case 47:
      return kRuntime;
    case 38:
      return kAuto;
    default:
      *known = false;
      return kStatic;
  }
}

template <class T, class S>
std::uint64_t trip_count(T lower, T upper, S incr) {
  if (incr > 0)
    return upper < lower ? 0
                         : (std::uint64_t(upper) - std::uint64_t(lower)) / std::uint64_t(incr) + 1;
  if (lower < upper) return 0;
  return (std::uint64_t(lower) - std::uint64_t(upper)) / (0 - std::uint64_t(std::int64_t(incr))) +
         1;
}

void unknown_schedule(const char* entry, int kind) {
  static char msg[96];
  std::snprintf(msg, sizeof msg, "%s with schedule kind %d", entry, kind);
  unsupported(msg);
}

template <class T, class S>
void static_init(int kind, std::int32_t* last, T* lower, T* upper, S* stride, S incr, S chunk) {
  std::uint64_t ch = std::uint64_t(chunk > 0 ? chunk : 1);
  bool known = false;
  const int sched = to_sched(kind, &ch, &known);
  if (!known || sched != kStatic) unknown_schedule("__kmpc_for_static_init", kind);
  const bool distribute = (kind & ~kModifiers) >= 91;
  const Team* t = current_team();
  const auto n = std::uint64_t(distribute ? t->num_teams : t->n);
  const auto id = std::uint64_t(distribute ? t->team_num : self().id);
  const std::uint64_t count = trip_count(*lower, *upper, incr);
  note_loop_count(count);
  if (ompt::on()) ompt::work_open(distribute ? ompt::kWorkDistribute : ompt::kWorkLoop, count);
  const auto step = std::uint64_t(std::int64_t(incr));
  const auto base = std::uint64_t(*lower);
  if (last) *last = 0;
  if (count == 0) {
    *stride = incr;
    return;
  }
  if (ch) {  // chunks round-robin; the compiled code steps by *stride
    *lower = T(base + id * ch * step);
    *upper = T(base + (id * ch + ch - 1) * step);
    *stride = S(std::int64_t(ch * n * step));
    if (last) *last = ((count - 1) / ch) % n == id;
    return;
  }
  const std::uint64_t per = count / n, rest = count % n;
  const std::uint64_t lo = id * per + std::min(id, rest), hi = lo + per + (id < rest ? 1 : 0);
  *stride = S(std::int64_t(count * step));
  if (lo == hi) {  // nothing for this thread: lower past upper
    *lower = T(base + count * step);
    *upper = T(base + (count - 1) * step);
    return;
  }
  *lower = T(base + lo * step);
  *upper = T(base + (hi - 1) * step);
  if (last) *last = hi == count;
}

template <class T, class S>
void dispatch_init(int kind, T lb, T ub, S st, S chunk) {
  std::uint64_t ch = std::uint64_t(chunk > 0 ? chunk : 0);
  bool known = false;
  int sched = to_sched(kind, &ch, &known);
  if (!known) unknown_schedule("__kmpc_dispatch_init", kind);
  sched = resolve_sched(sched, &ch);
  const std::uint64_t count = trip_count(lb, ub, st);
  note_loop_count(count);
  if (ompt::on()) ompt::work_open(ompt::kWorkLoop, count);
  ws_enter([&](WorkShare& w) {
    w.sched = sched;
    w.base = std::uint64_t(lb);
    w.step = std::uint64_t(std::int64_t(st));
    w.count = count;
    w.chunk = ch;
  });
}

template <class T, class S>
std::int32_t dispatch_next(std::int32_t* last, T* lower, T* upper, S* stride) {
  std::uint64_t lo = 0, hi = 0;
  if (!self().ws || !ws_next(&lo, &hi)) {
    if (ompt::on()) ompt::work_close();
    ws_leave();
    return 0;
  }
  const WorkShare& w = *self().ws;
  *lower = T(w.base + lo * w.step);
  *upper = T(w.base + (hi - 1) * w.step);
  if (stride) *stride = S(std::int64_t(w.step));
  if (last) *last = hi == w.count;
  return 1;
}

// distribute parallel for in one call (what the LLVM runtime offers for
// it; clang 14 itself emits a distribute static_init and a nested one): the
// league's balanced blocks (kind 92) give this thread's team its range,
// whose upper bound goes to *upper_dist, then the team's threads share
// that range as `kind` says (static only).
template <class T, class S>
void dist_static_init(int kind, std::int32_t* last, T* lower, T* upper, T* upper_dist, S* stride,
                      S incr, S chunk) {
  std::int32_t team_last = 0, thread_last = 0;
  static_init(92, &team_last, lower, upper, stride, incr, S(0));
  if (upper_dist) *upper_dist = *upper;
  static_init(kind, &thread_last, lower, upper, stride, incr, chunk);
  if (last) *last = team_last && thread_last;
}

// The same with a dynamic schedule inside the team: the team's range is
// the team's next worksharing construct; *last: this team has the last block.
template <class T, class S>
void dist_dispatch_init(int kind, std::int32_t* last, T lb, T ub, S st, S chunk) {
  S stride = 0;
  static_init(92, last, &lb, &ub, &stride, st, S(0));
  dispatch_init(kind, lb, ub, st, chunk);
}

}  // namespace
}  // namespace joule::omp::kmp

using namespace joule::omp;
using namespace joule::omp::kmp;

extern "C" {

#define JOULE_KMPC_LOOP(sfx, T, S)                                                                 \
  JOULE_EXPORT void __kmpc_for_static_init_##sfx(Ident*, std::int32_t, std::int32_t kind,          \
                                                 std::int32_t* last, T* lower, T* upper,           \
                                                 S* stride, S incr, S chunk) {                     \
    static_init(kind, last, lower, upper, stride, incr, chunk);                                    \
  }                                                                                                \
  JOULE_EXPORT void __kmpc_dispatch_init_##sfx(Ident*, std::int32_t, std::int32_t kind, T lb,      \
                                               T ub, S st, S chunk) {                              \
    dispatch_init(kind, lb, ub, st, chunk);                                                        \
  }                                                                                                \
  JOULE_EXPORT std::int32_t __kmpc_dispatch_next_##sfx(Ident*, std::int32_t, std::int32_t* last,   \
                                                       T* lower, T* upper, S* stride) {            \
    return dispatch_next(last, lower, upper, stride);                                              \
  }                                                                                                \
  JOULE_EXPORT void __kmpc_dist_for_static_init_##sfx(Ident*, std::int32_t, std::int32_t kind,     \
                                                      std::int32_t* last, T* lower, T* upper,      \
                                                      T* upper_dist, S* stride, S incr, S chunk) { \
    dist_static_init(kind, last, lower, upper, upper_dist, stride, incr, chunk);                   \
  }                                                                                                \
  JOULE_EXPORT void __kmpc_dist_dispatch_init_##sfx(                                               \
      Ident*, std::int32_t, std::int32_t kind, std::int32_t* last, T lb, T ub, S st, S chunk) {    \
    dist_dispatch_init(kind, last, lb, ub, st, chunk);                                             \
  }                                                                                                \
  /* Once per iteration of an ordered loop: the turn passes at __kmpc_end_ordered. */              \
  JOULE_EXPORT void __kmpc_dispatch_fini_##sfx(Ident*, std::int32_t) {}

JOULE_KMPC_LOOP(4, std::int32_t, std::int32_t)
JOULE_KMPC_LOOP(4u, std::uint32_t, std::int32_t)
JOULE_KMPC_LOOP(8, std::int64_t, std::int64_t)
JOULE_KMPC_LOOP(8u, std::uint64_t, std::int64_t)

JOULE_EXPORT void __kmpc_for_static_fini(Ident*, std::int32_t) {
  if (ompt::on()) ompt::work_close();
}

JOULE_EXPORT void __kmpc_ordered(Ident*, std::int32_t) { GOMP_ordered_start(); }
JOULE_EXPORT void __kmpc_end_ordered(Ident*, std::int32_t) { GOMP_ordered_end(); }

}  // extern "C"
