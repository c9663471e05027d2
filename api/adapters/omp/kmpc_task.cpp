// Explicit tasks in the LLVM runtime ABI. __kmpc_omp_task_alloc hands the
// compiled code a kmp_task_t (privates after it, then the shareds) that it
// fills before __kmpc_omp_task. The block is decided at the allocation:
//  - a deferred task's lives in its joule task's own block (task.cpp's
//    create_task, the GOMP path's), so filling it in place is all it takes;
//  - a task the throttle runs at once (task_throttle.cpp), or an included
//    one, gets a recycled block of the thread's and runs as a plain call
//    (task_inline.cpp), as GOMP_task runs it;
//  - a task with a priority (known only once the block is filled) gets a
//    block of its own, and its joule task, holding a pointer to it, is made
//    at __kmpc_omp_task.
// The compiled code never moves the block: privates may be C++ objects.
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

void* block_alloc(std::size_t size) {
  Cache& c = t_cache;
  if (size <= kCached && c.n > 0) return c.blocks[--c.n];
  void* b = std::aligned_alloc(16, (std::max(size, kCached) + 15) & ~std::size_t(15));
  if (!b) unsupported("__kmpc_omp_task_alloc (out of memory)");
  return b;
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

void joule_body(void* block) {
  auto* p = static_cast<Prefix*>(block);
  if (!p->body_ran) run_body(p);
}

// A priority task's joule block holds the pointer to its own.
void indirect_body(void* args) {
  auto* p = *static_cast<Prefix**>(args);
  run_body(p);
  std::free(p);
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

Task* task_of(Prefix* p) { return reinterpret_cast<Task*>(p + 1); }
Prefix* prefix_of(void* task) { return static_cast<Prefix*>(task) - 1; }

Prefix* task_alloc(std::int32_t flags, std::size_t task_size, std::size_t shareds_size,
                   Routine entry, bool now) {
  ThreadState& s = self();
  const std::size_t task_bytes = (task_size + 7) & ~std::size_t(7);
  const std::size_t size = sizeof(Prefix) + task_bytes + shareds_size;
  if ((task_bytes | shareds_size) >> 32) unsupported("__kmpc_omp_task_alloc of 4 GiB or more");
  Prefix* p = nullptr;
  void* jt = nullptr;
  if (now) {
    p = static_cast<Prefix*>(block_alloc(size));
    p->mode = Mode::kInline;
  } else if (flags & kPriority) {
    p = static_cast<Prefix*>(std::aligned_alloc(16, (size + 15) & ~std::size_t(15)));
    if (!p) unsupported("__kmpc_omp_task_alloc (out of memory)");
    p->mode = Mode::kIndirect;
  } else if (s.in_final || (!(flags & kDetachable) && should_run_inline(true))) {
    p = static_cast<Prefix*>(block_alloc(size));
    p->mode = Mode::kInline;
  } else {
    ensure_init();
    joule_task_options_t opts = JOULE_TASK_OPTIONS_INIT;
    opts.final_ = (flags & kFinal) ? 1 : 0;
    void* block = nullptr;
    jt = create_task(GompTask{joule_body, nullptr, nullptr, long(size), 16}, opts, nullptr, &block);
    p = static_cast<Prefix*>(block);
    p->mode = Mode::kJoule;
  }
  p->jt = static_cast<joule_task_t*>(jt);
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

void task_set_event(Prefix* p, std::uint64_t ev) {
  p->event = ev;
  if (p->mode == Mode::kJoule) set_block_event(p, ev);
}

// An included or throttled task, or an if(0) one whose body the compiled
// code calls between __kmpc_omp_task_begin_if0 and _complete_if0.
// As GOMP_task runs its tasks at once: run_inline (task_inline.cpp).
void run_now(Prefix* p) {
  run_inline(GompTask{joule_body, p, nullptr, 0, 0}, (p->flags & kFinal) != 0, nullptr);
  task_done_now(p);
}

void task_done_now(Prefix* p, std::vector<joule_dep_t>* if0_deps) {
  // An undeferred detachable task: the creator goes on after the body; its
  // completion (what taskwait and barriers wait for) waits for the event,
  // in its joule task (task.cpp), as GOMP_task's.
  if (p->event && p->mode == Mode::kJoule && !self().in_final) {
    p->body_ran = true;
    if (if0_deps) joule_task_add_deps(p->jt, if0_deps->data(), if0_deps->size());
    delete if0_deps;
    joule_task_submit(p->jt);
    return;
  }
  if (p->event) event_body_end(p->event);  // the creator waits for the fulfil
  switch (p->mode) {
    case Mode::kInline:
      block_free(p);
      break;
    case Mode::kIndirect:
      std::free(p);
      break;
    case Mode::kJoule:
      discard_task_block(p->jt, p);
      break;
  }
}

// A deferred task: its joule task, made now for a priority task, with
// its dependencies, submitted.
void task_submit(Prefix* p, const joule_dep_t* deps, std::size_t n) {
  joule_task_t* jt = p->jt;
  if (p->mode == Mode::kIndirect) {
    void* block = nullptr;
    jt = create_task(GompTask{indirect_body, &p, nullptr, sizeof p, alignof(Prefix*), p->event},
                     options(p), nullptr, &block);
  }
  if (n) joule_task_add_deps(jt, deps, n);
  joule_task_submit(jt);
}

}  // namespace joule::omp::kmp
