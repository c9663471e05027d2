// __kmpc_taskloop: the compiled code hands a filled pattern task whose
// block holds the loop's inclusive bounds (lb, ub point into it); each
// chunk is a copy of the pattern with its own bounds, its firstprivates
// copied by the compiled task_dup, as GOMP_taskloop's chunks (taskloop.cpp:
// the same count of tasks and the same split). clang wraps the call in
// its own taskgroup (nogroup is then 1).
#include <algorithm>
#include <cstring>

#include "kmpc_task.hpp"

namespace joule::omp::kmp {
namespace {

using TaskDup = void (*)(void* dst, void* src, std::int32_t lastpriv);

std::uint64_t trip(std::uint64_t lb, std::uint64_t ub, std::int64_t st) {
  if (st > 0) return std::int64_t(ub) < std::int64_t(lb) ? 0 : (ub - lb) / std::uint64_t(st) + 1;
  if (st == 0) unsupported("__kmpc_taskloop with a zero step");
  return std::int64_t(lb) < std::int64_t(ub) ? 0 : (lb - ub) / (0 - std::uint64_t(st)) + 1;
}

// sched 0: one task per thread (as GOMP_taskloop), 1: grainsize, 2: num_tasks.
std::uint64_t task_count(std::uint64_t count, int sched, std::uint64_t value) {
  std::uint64_t n = 0;
  if (sched == 1)
    n = value ? count / value : count;
  else if (sched == 2)
    n = value;
  else
    n = std::uint64_t(std::max(current_team()->n, joule_num_workers()));
  return std::clamp<std::uint64_t>(n, 1, count);
}

void spawn_chunk(Prefix* pattern, bool now, std::size_t lb_at, std::size_t ub_at, std::uint64_t lo,
                 std::uint64_t hi, bool last, TaskDup dup) {
  Task* src = task_of(pattern);
  Prefix* p =
      task_alloc(pattern->flags, pattern->task_bytes, pattern->shareds_size, src->routine, now);
  Task* dst = task_of(p);
  std::memcpy(dst, src, pattern->task_bytes + pattern->shareds_size);
  if (src->shareds)
    dst->shareds = reinterpret_cast<char*>(dst) +
                   (static_cast<char*>(src->shareds) - reinterpret_cast<char*>(src));
  std::memcpy(reinterpret_cast<char*>(dst) + lb_at, &lo, sizeof lo);
  std::memcpy(reinterpret_cast<char*>(dst) + ub_at, &hi, sizeof hi);
  if (dup) dup(dst, src, last ? 1 : 0);
  task_start(p);
}

}  // namespace
}  // namespace joule::omp::kmp

using namespace joule::omp;
using namespace joule::omp::kmp;

extern "C" {

JOULE_EXPORT void __kmpc_taskloop(Ident*, std::int32_t, void* task, std::int32_t if_val,
                                  std::uint64_t* lb, std::uint64_t* ub, std::int64_t st,
                                  std::int32_t nogroup, std::int32_t sched, std::uint64_t grainsize,
                                  void* task_dup) {
  Prefix* pattern = prefix_of(task);
  const auto* base = static_cast<const char*>(task);
  const auto lb_at = std::size_t(reinterpret_cast<const char*>(lb) - base);
  const auto ub_at = std::size_t(reinterpret_cast<const char*>(ub) - base);
  const std::uint64_t start = *lb, count = trip(*lb, *ub, st);
  const std::uint64_t n = count ? task_count(count, sched, grainsize) : 0;
  const std::uint64_t per = n ? count / n : 0, rest = n ? count % n : 0;
  const auto step = std::uint64_t(st);
  const bool now = if_val == 0 || self().in_final;
  std::uint64_t lo = 0;
  for (std::uint64_t k = 0; k < n; ++k) {
    const std::uint64_t hi = lo + per + (k < rest ? 1 : 0);
    spawn_chunk(pattern, now, lb_at, ub_at, start + lo * step, start + (hi - 1) * step, hi == count,
                reinterpret_cast<TaskDup>(task_dup));
    lo = hi;
  }
  // The pattern never runs: it ends here (its firstprivates' destructors).
  if (pattern->flags & 0x8) task_of(pattern)->data1(gtid(), task);
  task_done_now(pattern);
  if (!nogroup) wait_descendants();
}

}  // extern "C"
