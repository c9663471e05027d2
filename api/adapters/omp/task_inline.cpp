// Tasks that run at once on the creating thread, as a plain call: included
// tasks (created in a final task), undeferred ones (if(0)) without
// dependencies, and, while many deferred tasks wait to start, new ones
// without dependencies (task_throttle.cpp: a task may always run at its
// creation; the others have plenty to do meanwhile). A joule task per
// such task would cost an allocation, a queue round trip and a completion
// for work the creator does anyway.
//
// Such a task has no joule task, so its deferred children become joule
// children of the enclosing joule task; an InlineFrame counts them for its
// taskwait. Children with dependencies then meet the enclosing task's
// other children in one domain: extra order between tasks created earlier
// and later, never a missing one.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "joule/team.h"
#include "ompt.hpp"
#include "task.hpp"
#include "task_inline.hpp"
#include "team.hpp"

namespace joule::omp {
namespace {

constexpr std::size_t kLocalBlock = 512;

int frame_done(void* arg) {
  return static_cast<InlineFrame*>(arg)->pending.load(std::memory_order_acquire) == 0;
}

// cpyfn (firstprivate copy constructors) and taskloop bounds need a block
// of the task's own; otherwise GCC's block is the task's (as with if(0),
// the creator does not touch it again).
void call_with_copy(const GompTask& g, const std::uint64_t* bounds) {
  const std::size_t align = std::max<std::size_t>(std::size_t(g.arg_align), 16);
  const std::size_t size = std::max<std::size_t>(std::size_t(g.arg_size), 16);
  alignas(64) unsigned char local[kLocalBlock];
  const bool fits = align <= 64 && size <= kLocalBlock;
  void* block = fits ? local : std::aligned_alloc(align, (size + align - 1) & ~(align - 1));
  if (!block) unsupported("GOMP_task (out of memory for an included task)");
  if (g.cpyfn)
    g.cpyfn(block, g.data);
  else
    std::memcpy(block, g.data, std::size_t(g.arg_size));
  if (bounds) std::memcpy(block, bounds, 2 * sizeof(std::uint64_t));
  g.fn(block);
  if (!fits) std::free(block);
}

// Same thread, same team and thread number: only the task fields change
// (included tasks are the bulk of final-cut-off codes, so this stays small).
void run_inline_plain(const GompTask& g, bool final_task, const std::uint64_t* bounds) {
  ThreadState& s = self();
  if (s.red && s.seat < 0) [[unlikely]]
    return run_inline_seated(g, final_task, bounds);
  const void* tag = &s;  // a task of its own for the locks: any address of this frame
  const InlineSaved saved = inline_enter(final_task, &tag);
  if (g.cpyfn || bounds)
    call_with_copy(g, bounds);
  else
    g.fn(g.data);
  inline_leave(saved);
}

// With a tool attached: the task's events around it (ompt_tasks.cpp).
[[gnu::noinline, gnu::cold]] void run_inline_reported(const GompTask& g, bool final_task,
                                                      const std::uint64_t* bounds) {
  ompt::inline_begin(final_task);
  run_inline_plain(g, final_task, bounds);
  ompt::inline_end();
}

}  // namespace

void frame_release(InlineFrame* f) {
  if (f->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete f;
}

// run_inline under a borrowed thread number (seats.cpp).
void run_inline_seated(const GompTask& g, bool final_task, const std::uint64_t* bounds) {
  ThreadState& s = self();
  const int id = s.id;
  s.id = seat_borrow(current_team(), id);
  run_inline_plain(g, final_task, bounds);
  seat_leave();
  s.id = id;
}

// A task that sees a task reduction on a thread without a thread number of
// the team (its creator registered it there) holds one for its body.
void run_inline(const GompTask& g, bool final_task, const std::uint64_t* bounds) {
  if (ompt::on()) return run_inline_reported(g, final_task, bounds);
  run_inline_plain(g, final_task, bounds);
}

InlineFrame* frame_for_child(ThreadState& s) {
  if (!s.inline_task) return nullptr;
  if (!s.frame) s.frame = new InlineFrame;
  s.frame->pending.fetch_add(1, std::memory_order_relaxed);
  s.frame->refs.fetch_add(1, std::memory_order_relaxed);
  return s.frame;
}

// seq_cst with the waiter's `waiting` store: either it sees 0 before it
// sleeps or this sees it waiting and wakes it.
void frame_child_done(InlineFrame* f) {
  if (f->pending.fetch_sub(1, std::memory_order_seq_cst) == 1 &&
      f->waiting.load(std::memory_order_seq_cst))
    joule_wake_slot(f->waiter);
  frame_release(f);
}

void wait_children() {
  ThreadState& s = self();
  if (!s.inline_task) {
    SeatAway away;
    joule_taskwait();
    return;
  }
  InlineFrame* f = s.frame;
  if (!f || frame_done(f)) return;
  f->waiter = joule_current_wait_slot();
  f->waiting.store(true, std::memory_order_seq_cst);
  SeatAway away;
  joule_wait_until(frame_done, f);
  f->waiting.store(false, std::memory_order_relaxed);
}

// Descendants: inside an inline task, the enclosing joule task's children
// (a superset: later at worst); in a final task everything ran included.
void wait_descendants() {
  if (self().in_final) return;
  SeatAway away;
  joule_taskwait();
}

}  // namespace joule::omp
