// Explicit tasks in the LLVM runtime ABI. __kmpc_omp_task_alloc hands the
// compiled code a kmp_task_t (privates after it, then the shareds) that it
// fills before __kmpc_omp_task. The block never moves (privates may be C++
// objects): it comes from a small per-thread cache of blocks, and
//  - a tied task without priority or detach (kPlain, task_alloc_plain: the
//    bulk of task programs) is decided at __kmpc_omp_task, by the throttle
//    (task_throttle.cpp) as GOMP_task decides: run at once as a plain call
//    between inline_enter and inline_leave (task_inline.hpp), or deferred;
//  - the others (task_alloc) are decided at the allocation when included
//    or with a priority or detach (never run at once by the throttle),
//    else by the throttle at their start; those run at once go through
//    run_inline;
//  - a task with dependencies (__kmpc_omp_task_with_deps) is deferred
//    unless included, without asking the throttle, as GOMP_task: asked, it
//    would spend the inline budget that later tasks without dependencies
//    run on;
//  - a deferred task becomes, at __kmpc_omp_task (once its priority is
//    written), a joule task that holds a pointer to the block: task.cpp's
//    header and that pointer fit joule's pooled task blocks, which a
//    kmp_task_t inside would not.
// Costs per task against GOMP_task's: docs/openmp-llvm-abi.md.
#include "kmpc_task.hpp"
#include "ompt.hpp"
#include "task_inline.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace joule::omp::kmp {

constinit thread_local BlockCache t_small, t_large;

namespace {

constexpr std::int32_t kFinal = 0x2, kDestructors = 0x8, kPriority = 0x20, kDetachable = 0x40;

Prefix* next_of(const Prefix* p) { return reinterpret_cast<Prefix*>(p->event); }

// A block of the calling thread's.
inline void keep_own(BlockCache& c, Prefix* p) {
  if (c.n < BlockCache::kDepth) {
    c.blocks[c.n++] = p;
  } else {
    p->event = reinterpret_cast<std::uint64_t>(c.spare);
    c.spare = p;
  }
}

// Cached blocks come a slab of kSlabBytes at a time: a creator that runs
// ahead of its tasks (Task Bench's stencil from one `single`: all its blocks
// in flight) pays one allocation per slab, not a malloc each.
constexpr std::size_t kSlabBytes = 8192;

// The thread's cache of that size is empty: its spare blocks, else those
// other threads gave back, else new ones. A block lives as long as the
// program: a thread that ends keeps its blocks (its tasks ended before it).
[[gnu::noinline]] void* block_refill_or_new(std::size_t size) {
  BlockCache& c = cache_for(size);
  const bool cached = size <= kCachedBlock && !ompt::on();
  if (size <= kCachedBlock) {
    if (!c.spare) c.spare = c.returned.exchange(nullptr, std::memory_order_acquire);
    if (Prefix* p = c.spare) {
      c.spare = next_of(p);
      return p;
    }
  }
  const std::size_t stride = size <= kSmallBlock ? kSmallBlock : kCachedBlock;
  const std::size_t bytes = cached ? kSlabBytes : std::max((size + 63) & ~std::size_t(63), stride);
  // Line-aligned: a small block is exactly two cache lines.
  auto* p = static_cast<Prefix*>(std::aligned_alloc(64, bytes));
  if (!p) unsupported("__kmpc_omp_task_alloc (out of memory)");
  // With a tool attached a block is freed, never recycled: a data-race
  // detector (Archer) sees a block's reuse only through malloc and free.
  p->owner = cached ? &c : nullptr;
  if (!cached) return p;
  // The rest of the slab goes to `spare` (empty here), in address order.
  char* const base = reinterpret_cast<char*>(p);
  Prefix* next = c.spare;
  for (std::size_t at = kSlabBytes - stride; at >= stride; at -= stride) {
    auto* q = reinterpret_cast<Prefix*>(base + at);
    q->owner = &c;
    q->event = reinterpret_cast<std::uint64_t>(next);
    next = q;
  }
  c.spare = next;
  return p;
}

inline void* block_alloc(std::size_t size) {
  BlockCache& c = cache_for(size);
  if (size <= kCachedBlock && c.n > 0) [[likely]]
    return c.blocks[--c.n];
  return block_refill_or_new(size);
}

void block_free(Prefix* p) {
  BlockCache* owner = p->owner;
  if (!owner) return std::free(p);
  if (owner == &t_small) [[likely]]
    return keep_own(t_small, p);
  if (owner == &t_large) return keep_own(t_large, p);
  Prefix* head = owner->returned.load(std::memory_order_relaxed);
  do {
    p->event = reinterpret_cast<std::uint64_t>(head);
  } while (!owner->returned.compare_exchange_weak(head, p, std::memory_order_release,
                                                  std::memory_order_relaxed));
}

// The task's body as the compiled code wants it called, then its
// firstprivates' destructors.
// An untied task's routine, at a task scheduling point in its body, passes
// itself to __kmpc_omp_task and returns: joule runs its next part (part_id)
// at once on this thread (joule tasks are tied).
void run_body(Prefix* p) {
  Task* t = task_of(p);
  p->running = true;
  do {
    p->again = false;
    t->routine(gtid(), t);
  } while (p->again);
  p->running = false;
  if (p->flags & kDestructors) t->data1(gtid(), t);
}

void inline_body(void* block) { run_body(static_cast<Prefix*>(block)); }

// A deferred task's joule task holds a pointer to its block.
void deferred_body(void* args) {
  auto* p = *static_cast<Prefix**>(args);
  if (!p->body_ran) run_body(p);
  block_free(p);
}

joule_task_options_t options(Prefix* p) {
  joule_task_options_t opts = JOULE_TASK_OPTIONS_INIT;
  opts.final_ = (p->flags & kFinal) ? 1 : 0;
  if (p->flags & kPriority)  // OpenMP 5.2 §12.4: capped at max-task-priority-var
    opts.priority =
        std::min(std::int32_t(task_of(p)->data2), std::int32_t(icv().max_task_priority));
  return opts;
}

}  // namespace

Prefix* task_alloc(std::int32_t flags, std::size_t task_size, std::size_t shareds_size,
                   Routine entry, bool now) {
  ThreadState& s = self();
  const std::size_t task_bytes = (task_size + 7) & ~std::size_t(7);
  const std::size_t size = sizeof(Prefix) + task_bytes + shareds_size;
  if ((task_bytes | shareds_size) >> 32) [[unlikely]]
    unsupported("__kmpc_omp_task_alloc of 4 GiB or more");
  // Run at once: if(0) taskloop chunks and included tasks. The throttle
  // decides at the start (kOpen: a task with dependencies never asks it),
  // never for a task with a priority (deferred, so that it counts) or
  // detach (its creator goes on).
  Mode mode = Mode::kOpen;
  if (now || s.in_final)
    mode = Mode::kInline;
  else if (flags & (kPriority | kDetachable))
    mode = Mode::kDeferred;
  return task_fill(block_alloc(size), mode, flags, task_bytes, shareds_size, entry);
}

Task* task_alloc_other(std::int32_t flags, std::size_t task_size, std::size_t shareds_size,
                       Routine entry) {
  const std::size_t size = block_size(task_size, shareds_size);
  BlockCache& c = cache_for(size);
  if ((flags & kPlainMask) == kTiedFlag && size <= kCachedBlock) {
    if (!c.spare) c.spare = c.returned.exchange(nullptr, std::memory_order_acquire);
    if (void* block = cached_block(c))
      return task_of(task_fill(block, Mode::kPlain, flags, (task_size + 7) & ~std::size_t(7),
                               shareds_size, entry));
  }
  return task_of(task_alloc(flags, task_size, shareds_size, entry));
}

namespace {

// A kPlain task the throttle runs at once: the body between inline_enter
// and inline_leave, as run_inline runs it, without run_inline's generic
// block handling or task_done_now's event (it has none). Tied: its routine
// does not come back to __kmpc_omp_task (run_body's loop).
[[gnu::always_inline]] inline void run_plain(Prefix* p) {
  const ThreadState& s = self();
  // run_inline holds a thread number for it, and reports it to a tool
  if ((s.red && s.seat < 0) || ompt::on()) [[unlikely]]
    return run_now(p);
  const InlineSaved saved = inline_enter((p->flags & kFinal) != 0, p);
  Task* t = task_of(p);
  t->routine(s.id, t);
  if (p->flags & kDestructors) t->data1(s.id, t);
  inline_leave(saved);
  keep_own(*p->owner, p);  // a kPlain block is one of this thread's caches
}

[[gnu::noinline]] void submit_plain(Prefix* p) {
  p->mode = Mode::kDeferred;
  task_submit(p, nullptr, 0);
}

// In __kmpc_omp_task itself: a call less per task.
[[gnu::always_inline]] inline void start_plain(Prefix* p) {
  if (self().in_final || should_run_inline(true)) return run_plain(p);
  return submit_plain(p);
}

}  // namespace

// A kPlain or kOpen task decides now: at once, or a joule task.
bool resolve_now(Prefix* p) {
  const bool now = self().in_final || should_run_inline(true);
  p->mode = now ? Mode::kInline : Mode::kDeferred;
  return now;
}

void task_start(Prefix* p) {
  if (p->mode == Mode::kPlain) return start_plain(p);
  if (p->running) {
    p->again = true;
    return;
  }
  if (p->mode == Mode::kOpen) resolve_now(p);
  if (p->mode == Mode::kInline)
    run_now(p);
  else
    task_submit(p, nullptr, 0);
}

void task_set_event(Prefix* p, std::uint64_t ev) { p->event = ev; }

// An included or throttled task, or an if(0) one whose body the compiled
// code calls between __kmpc_omp_task_begin_if0 and _complete_if0.
// As GOMP_task runs its tasks at once: run_inline (task_inline.cpp).
void run_now(Prefix* p) {
  run_inline(GompTask{inline_body, p, nullptr, 0, 0}, (p->flags & kFinal) != 0, nullptr);
  task_done_now(p);
}

void task_done_now(Prefix* p, std::vector<joule_dep_t>* if0_deps) {
  // An undeferred detachable task: the creator goes on after the body; its
  // completion (what taskwait and barriers wait for, and its dependencies)
  // waits for the event in a joule task of its own (task.cpp), as GOMP_task's.
  if (p->event && p->mode == Mode::kDeferred && !self().in_final) {
    p->body_ran = true;
    task_submit(p, if0_deps ? if0_deps->data() : nullptr, if0_deps ? if0_deps->size() : 0);
    delete if0_deps;
    return;
  }
  delete if0_deps;
  if (p->event) event_body_end(p->event);  // the creator waits for the fulfil
  block_free(p);
}

// A deferred task: its joule task holds a pointer to the block (joule's
// pooled task blocks leave 64 bytes of arguments: task.cpp's header and
// the pointer), made now that the priority is known, with its dependencies.
void task_submit(Prefix* p, const joule_dep_t* deps, std::size_t n) {
  joule_task_t* jt = create_task(
      GompTask{deferred_body, &p, nullptr, sizeof p, alignof(Prefix*), p->event, n != 0},
      options(p), nullptr);
  if (n) {  // add_deps (task_depend.cpp) without the call where no tool listens
    if (ompt::on()) [[unlikely]]
      add_deps(jt, deps, n);
    else
      joule_task_add_deps(jt, deps, n);
  }
  joule_task_submit(jt);
}

}  // namespace joule::omp::kmp

using namespace joule::omp::kmp;

extern "C" JOULE_EXPORT std::int32_t __kmpc_omp_task(Ident*, std::int32_t, void* task) {
  Prefix* p = prefix_of(task);
  if (p->mode == Mode::kPlain) [[likely]]
    start_plain(p);
  else
    task_start(p);
  return 0;
}
