// GOMP_taskloop(_ull): the iteration space cut into tasks, each with its
// own copy of the argument block whose first two fields GCC reserves for
// the task's start and end. With `reduction`, the third holds the task
// reduction's descriptor: the taskloop is a taskgroup that registers it,
// and the compiled code folds the blocks after the call (reduction.hpp);
// the chunks index the blocks by their thread number.
#include <algorithm>

#include "reduction.hpp"
#include "task.hpp"
#include "team.hpp"

namespace joule::omp {
namespace {

constexpr unsigned kFinal = 1u << 1;
constexpr unsigned kPriority = 1u << 4;
constexpr unsigned kGrainsize = 1u << 9;
constexpr unsigned kIf = 1u << 10;
constexpr unsigned kNogroup = 1u << 11;
constexpr unsigned kReduction = 1u << 12;

// How many tasks: num_tasks, or count / grainsize, or one per team member.
std::uint64_t task_count(std::uint64_t count, unsigned flags, unsigned long num_tasks) {
  std::uint64_t n = 0;
  if (flags & kGrainsize)
    n = num_tasks ? count / num_tasks : count;
  else
    n = num_tasks ? num_tasks : std::uint64_t(std::max(current_team()->n, joule_num_workers()));
  return std::clamp<std::uint64_t>(n, 1, count);
}

// The descriptor is registered as the innermost one: tasks inside the
// chunks may name the variables in in_reduction.
std::uintptr_t* register_loop(void* data) {
  auto* desc = static_cast<std::uintptr_t**>(data)[2];
  ThreadState& s = self();
  desc[4] = reinterpret_cast<std::uintptr_t>(s.red);
  reduction_create(desc, ReductionKind::kTaskloop, current_team(), current_team()->n);
  s.red = desc;
  return desc;
}

void spawn_loop(const GompTask& g, unsigned flags, unsigned long num_tasks, int priority,
                std::uint64_t start, std::uint64_t step, std::uint64_t count) {
  std::uintptr_t* red = (flags & kReduction) ? register_loop(g.data) : nullptr;
  const bool group = !(flags & kNogroup);  // the construct's own taskgroup
  if (group) taskgroup_open();
  joule_task_options_t opts = JOULE_TASK_OPTIONS_INIT;
  opts.if_ = (flags & kIf) ? 1 : 0;
  opts.final_ = (flags & kFinal) ? 1 : 0;
  opts.priority = (flags & kPriority) ? std::min(priority, icv().max_task_priority) : 0;
  opts.label = "omp taskloop";
  const std::uint64_t n = count ? task_count(count, flags, num_tasks) : 0;
  const std::uint64_t per = n ? count / n : 0, rest = n ? count % n : 0;
  const bool included = self().in_final;
  std::uint64_t lo = 0;
  for (std::uint64_t k = 0; k < n; ++k) {
    const std::uint64_t hi = lo + per + (k < rest ? 1 : 0);
    const std::uint64_t bounds[2] = {start + lo * step, start + hi * step};
    if (included)  // in a final task: every chunk is an included task
      run_inline(g, false, bounds);
    else
      joule_task_submit(create_task(g, opts, bounds));
    lo = hi;
  }
  if (group)
    taskgroup_close();
  else if (red)
    wait_descendants();
}

}  // namespace
}  // namespace joule::omp

using namespace joule::omp;

extern "C" {

JOULE_EXPORT void GOMP_taskloop(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*),
                                long arg_size, long arg_align, unsigned flags,
                                unsigned long num_tasks, int priority, long start, long end,
                                long step) {
  spawn_loop(GompTask{fn, data, cpyfn, arg_size, arg_align}, flags, num_tasks, priority,
             std::uint64_t(start), std::uint64_t(step), count_signed(start, end, step));
}

JOULE_EXPORT void GOMP_taskloop_ull(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*),
                                    long arg_size, long arg_align, unsigned flags,
                                    unsigned long num_tasks, int priority, unsigned long long start,
                                    unsigned long long end, unsigned long long step) {
  const bool up = (flags & (1u << 8)) != 0;  // GOMP_TASK_FLAG_UP
  spawn_loop(GompTask{fn, data, cpyfn, arg_size, arg_align}, flags, num_tasks, priority, start,
             step, count_unsigned(up, start, end, step));
}

}  // extern "C"
