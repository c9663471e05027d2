// Explicit tasks in the LLVM runtime ABI. __kmpc_omp_task_alloc hands the
// compiled code a kmp_task_t (privates after it, then the shareds) that it
// fills before __kmpc_omp_task. The block never moves (privates may be C++
// objects): it comes from a small per-thread cache of blocks, and
//  - a task the throttle runs at once (task_throttle.cpp), or an included
//    one, runs as a plain call (task_inline.cpp), as GOMP_task runs it;
//  - a deferred task becomes, at __kmpc_omp_task (once its priority is
//    written), a joule task that holds a pointer to the block: task.cpp's
//    header and that pointer fit joule's pooled task blocks, which a
//    kmp_task_t inside would not.
#include "kmpc_task.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace joule::omp::kmp {
namespace {

constexpr std::int32_t kFinal = 0x2, kDestructors = 0x8, kPriority = 0x20, kDetachable = 0x40;
constexpr std::size_t kCached = 512;  // recycled blocks' size
constexpr int kCacheDepth = 8;

struct Cache {
  void* blocks[kCacheDepth]{};
  int n = 0;
};
// Initial-exec (as team.hpp's state): no __tls_get_addr call per task.
[[gnu::tls_model("initial-exec")]] constinit thread_local Cache t_cache;

[[gnu::noinline]] void* block_alloc_new(std::size_t size) {
  void* b = std::aligned_alloc(16, (std::max(size, kCached) + 15) & ~std::size_t(15));
  if (!b) unsupported("__kmpc_omp_task_alloc (out of memory)");
  return b;
}

inline void* block_alloc(std::size_t size) {
  Cache& c = t_cache;
  if (size <= kCached && c.n > 0) [[likely]]
    return c.blocks[--c.n];
  return block_alloc_new(size);
}

std::size_t block_size(const Prefix* p) { return sizeof(Prefix) + p->task_bytes + p->shareds_size; }

void block_free(Prefix* p) {
  Cache& c = t_cache;
  if (block_size(p) <= kCached && c.n < kCacheDepth)
    c.blocks[c.n++] = p;
  else
    std::free(p);
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
  // Run at once: if(0) taskloop chunks, included tasks, and what the
  // throttle says (never a detachable task: its creator goes on).
  const bool at_once =
      now || s.in_final || (!(flags & (kPriority | kDetachable)) && should_run_inline(true));
  auto* p = static_cast<Prefix*>(block_alloc(size));
  p->mode = at_once ? Mode::kInline : Mode::kDeferred;
  p->task_bytes = std::uint32_t(task_bytes);
  p->shareds_size = std::uint32_t(shareds_size);
  p->flags = flags;
  p->event = 0;
  p->running = p->again = p->body_ran = false;
  Task* t = task_of(p);
  t->shareds = shareds_size ? reinterpret_cast<char*>(t) + task_bytes : nullptr;
  t->routine = entry;
  t->part_id = 0;
  return p;
}

void task_start(Prefix* p) {
  if (p->running) {
    p->again = true;
    return;
  }
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
  if (n) add_deps(jt, deps, n);
  joule_task_submit(jt);
}

}  // namespace joule::omp::kmp
