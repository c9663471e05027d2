// GOMP_task and the task waits: a deferred task is a joule task whose block
// holds a header and GCC's argument block; the rest runs inline
// (task_inline.cpp). Dependencies: task_depend.cpp.
#include "task.hpp"

#include <algorithm>
#include <cstring>

#include "ompt.hpp"
#include "team.hpp"

namespace joule::omp {
namespace {

constexpr unsigned kFinal = 1u << 1;
constexpr unsigned kDepend = 1u << 3;
constexpr unsigned kPriority = 1u << 4;
constexpr unsigned kDetach = 1u << 13;

struct Header {
  void (*fn)(void*);
  Team* team;
  InlineFrame* frame;   // the inline task that created it (its taskwait counts it), or null
  std::uintptr_t* red;  // the creator's innermost task-reduction descriptor
  std::uint64_t event;  // detachable: its event, else 0
  int creator_id;
  // 48 bytes in all: with a small argument block (the LLVM ABI's tasks
  // pass a pointer, kmpc_task.cpp) it fits joule's pooled task blocks.
  std::uint32_t data_offset : 31;
  std::uint32_t final_task : 1;
};
static_assert(sizeof(Header) == 48);

// The body between its OMPT events: complete before anyone waiting for the
// task can see it end. The task's record follows the header (create_task).
[[gnu::noinline, gnu::cold]] void run_reported(Header* h) {
  auto* rec = reinterpret_cast<ompt::TaskRecord*>(h + 1);
  ompt::TaskRecord* prior = ompt::task_begin(rec);
  h->fn(reinterpret_cast<char*>(h) + h->data_offset);
  ompt::task_end(rec, prior);
}

// Runs with the creator's team as the binding team; a member of that team
// keeps its own thread number. A task that sees a task reduction runs under
// a thread number of the team held for its body (seats.cpp): the one this
// thread holds (as a member, or kept by a target region it runs, which
// waits below), else a free one.
void task_body(void* args) {
  auto* h = static_cast<Header*>(args);
  count_started();
  ThreadState& s = self();
  const ThreadState saved = s;
  s = ThreadState{};
  s.team = h->team;
  s.id = saved.team == h->team ? saved.id : h->creator_id;
  s.in_task = true;
  s.in_final = h->final_task;
  s.task_tag = h;
  s.red = h->red;
  int held = saved.team == h->team ? saved.seat : -1;
  if (h->red && held < 0) held = seat_kept(h->team);
  const bool borrow = h->red && held < 0;
  if (h->red) s.id = borrow ? seat_borrow(h->team, s.id) : held;
  if (!borrow) s.seat = held;
  if (h->event) event_body_start(h->event, h->frame);
  if (ompt::on())
    run_reported(h);
  else
    h->fn(reinterpret_cast<char*>(h) + h->data_offset);
  if (borrow) seat_leave();
  InlineFrame* creator = h->frame;
  s = saved;
  if (h->event)
    event_body_end(h->event);  // the creator's frame learns at the completion
  else if (creator)
    frame_child_done(creator);
}

void fill_header(Header* h, ThreadState& s, const GompTask& g, bool final_task,
                 std::uint32_t offset) {
  h->fn = g.fn;
  h->event = g.event;
  h->team = current_team();
  count_deferred();
  h->frame = frame_for_child(s);
  h->red = s.red;
  h->creator_id = s.id;
  h->data_offset = offset;
  h->final_task = final_task ? 1 : 0;
}

// The task's block: the header, `head - sizeof(Header)` bytes for an OMPT
// record (none without a tool), then GCC's argument block.
[[gnu::always_inline]] inline joule_task_t* make_task(const GompTask& g,
                                                      const joule_task_options_t& opts,
                                                      const std::uint64_t* bounds, std::size_t head,
                                                      Header** header) {
  ThreadState& s = self();
  const std::size_t align = g.arg_align > 16 ? std::size_t(g.arg_align) : 16;
  const std::size_t offset = (head + align - 1) & ~(align - 1);
  const std::size_t extra = align > 16 ? align : 0;  // joule aligns the block to 16
  joule_task_t* t = nullptr;
  void* args = nullptr;
  if (joule_task_create(task_body, offset + extra + std::size_t(g.arg_size), &opts, &t, &args) !=
      JOULE_OK)
    unsupported("GOMP_task (joule_task_create failed)");
  auto base = reinterpret_cast<std::uintptr_t>(args);
  const std::uintptr_t data = (base + head + align - 1) & ~std::uintptr_t(align - 1);
  *header = static_cast<Header*>(args);
  fill_header(*header, s, g, opts.final_ != 0, std::uint32_t(data - base));
  if (g.cpyfn)
    g.cpyfn(reinterpret_cast<void*>(data), g.data);
  else if (g.arg_size)
    std::memcpy(reinterpret_cast<void*>(data), g.data, std::size_t(g.arg_size));
  if (bounds) std::memcpy(reinterpret_cast<void*>(data), bounds, 2 * sizeof(std::uint64_t));
  return t;
}

[[gnu::noinline, gnu::cold]] joule_task_t* create_reported(const GompTask& g,
                                                           const joule_task_options_t& opts,
                                                           const std::uint64_t* bounds) {
  Header* h = nullptr;
  joule_task_t* t = make_task(g, opts, bounds, sizeof(Header) + ompt::kTaskRecordBytes, &h);
  ompt::task_created(reinterpret_cast<ompt::TaskRecord*>(h + 1), opts.final_ != 0, g.has_deps,
                     reinterpret_cast<const void*>(g.fn));
  return t;
}

}  // namespace

joule_task_t* create_task(const GompTask& g, const joule_task_options_t& opts,
                          const std::uint64_t* bounds) {
  // A task outside any region may be the program's first OpenMP call: joule
  // must start with the OMP_* settings (and the tool), not on its own at
  // joule_task_create.
  ensure_init();
  if (ompt::on()) return create_reported(g, opts, bounds);
  Header* h = nullptr;
  return make_task(g, opts, bounds, sizeof(Header), &h);
}

void taskwait() {
  if (ompt::on()) ompt::sync_begin(ompt::kTaskwait);
  const ThreadState& s = self();
  if (!s.inline_task || s.frame) wait_children();  // (an inline task with no deferred child: none)
  if (ompt::on()) ompt::sync_end(ompt::kTaskwait);
}

void taskgroup_open() {
  if (ompt::on()) ompt::sync_begin(ompt::kTaskgroup);
}

void taskgroup_close() {
  wait_descendants();
  if (ompt::on()) ompt::sync_end(ompt::kTaskgroup);
}

}  // namespace joule::omp

using namespace joule::omp;

extern "C" {

JOULE_EXPORT void GOMP_task(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*),
                            long arg_size, long arg_align, bool if_clause, unsigned flags,
                            void** depend, int priority, void* detach) {
  GompTask g{fn, data, cpyfn, arg_size, arg_align};
  const bool depends = (flags & kDepend) && depend;
  g.has_deps = depends;
  ThreadState& s = self();
  // detach: GCC reads the handle from *detach once the call returns; an
  // undeferred one is a joule task too, so that the creator goes on after
  // its body while its completion waits for the event.
  if ((flags & kDetach) && detach) *static_cast<std::uintptr_t*>(detach) = g.event = event_create();
  // Included tasks ignore their dependencies: all their siblings run in order.
  if (s.in_final || (!depends && !g.event && should_run_inline(if_clause))) {
    run_inline(g, (flags & kFinal) != 0, nullptr);
    if (g.event) event_body_end(g.event);  // included: the creator waits for the event
    return;
  }
  joule_task_options_t opts = JOULE_TASK_OPTIONS_INIT;
  opts.if_ = if_clause ? 1 : 0;
  opts.final_ = (flags & kFinal) ? 1 : 0;
  // OpenMP 5.2 §12.4: a priority above max-task-priority-var counts as that.
  opts.priority = (flags & kPriority) ? std::min(priority, icv().max_task_priority) : 0;
  joule_task_t* t = create_task(g, opts, nullptr);
  if (depends) add_depend(t, depend);
  joule_task_submit(t);
}

JOULE_EXPORT void GOMP_taskwait(void) { taskwait(); }

// Untied tasks are tied here, so there is nothing to switch to.
JOULE_EXPORT void GOMP_taskyield(void) {}

// A taskgroup ends when every child of the current task has finished
// (joule completes a task only after its descendants): it may wait for
// children created before the group too, which is never wrong, only later.
JOULE_EXPORT void GOMP_taskgroup_start(void) { taskgroup_open(); }
JOULE_EXPORT void GOMP_taskgroup_end(void) { taskgroup_close(); }

}  // extern "C"
