// The LLVM ABI's task blocks (kmpc_task.cpp): a prefix of joule's, then the
// kmp_task_t the compiled code sees, its privates and its shareds.
#pragma once

#include <atomic>
#include <vector>

#include "kmpc.hpp"
#include "task.hpp"

namespace joule::omp::kmp {

// Undecided until the task starts (task_start, or __kmpc_omp_task_with_deps,
// which defers a task with dependencies without asking the throttle, as
// GOMP_task): kPlain, task_alloc_plain's block; kOpen, task_alloc's.
enum class Mode : std::uint8_t { kInline, kDeferred, kPlain, kOpen };

struct BlockCache;

// 32 bytes before the kmp_task_t.
struct alignas(16) Prefix {
  BlockCache* owner;    // the thread whose cache the block goes back to (null: freed)
  std::uint64_t event;  // a detachable task's event, or 0; in a cache's lists: the next block
  std::uint32_t task_bytes, shareds_size;  // as allocated (taskloop copies them)
  std::int32_t flags;                      // the allocation's kmp_tasking_flags
  Mode mode;
  bool running;   // its routine runs now
  bool again;     // an untied task asked for its next part (see run_body)
  bool body_ran;  // an if(0) detachable task's joule task only waits for the event
};
static_assert(sizeof(Prefix) == 32);

inline Task* task_of(Prefix* p) { return reinterpret_cast<Task*>(p + 1); }
inline Prefix* prefix_of(void* task) { return static_cast<Prefix*>(task) - 1; }

// now: the task will run at once on this thread (a block of the thread's).
Prefix* task_alloc(std::int32_t flags, std::size_t task_size, std::size_t shareds_size,
                   Routine entry, bool now = false);

// Each thread recycles the blocks it allocated, in two sizes
// (kmpc_task.cpp): a few at hand, the rest in `spare`; a block a deferred
// task frees on another thread goes back to its owner's `returned` (pushed
// there; the owner takes the whole list at once), so that a thread that
// creates the tasks others run does not allocate one block each. Most
// tasks (prefix, kmp_task_t and up to 56 bytes of privates and shareds)
// take a small block, two cache lines: a creator running ahead of its
// tasks hands out consecutive blocks, which the runners then read in the
// same order, and four times as many of them share a page and stay in the
// caches as at the large size (docs/openmp-llvm-abi.md, "Cost per task").
// Initial-exec (as team.hpp's state): no __tls_get_addr call per task.
constexpr std::size_t kSmallBlock = 128, kCachedBlock = 512;
struct BlockCache {
  static constexpr int kDepth = 8;
  void* blocks[kDepth]{};
  int n = 0;
  Prefix* spare = nullptr;                 // linked through `event`
  std::atomic<Prefix*> returned{nullptr};  // linked through `event`
};
// Two variables, not an array: each access is one fixed offset from the
// thread pointer.
[[gnu::tls_model("initial-exec")]] extern constinit thread_local BlockCache t_small, t_large;
inline BlockCache& cache_for(std::size_t size) { return size <= kSmallBlock ? t_small : t_large; }

// A new task's prefix and kmp_task_t in `block` (task_bytes: kmp_task_t
// and privates, rounded up to 8).
inline Prefix* task_fill(void* block, Mode mode, std::int32_t flags, std::size_t task_bytes,
                         std::size_t shareds_size, Routine entry) {
  auto* p = static_cast<Prefix*>(block);
  p->event = 0;
  p->task_bytes = std::uint32_t(task_bytes);
  p->shareds_size = std::uint32_t(shareds_size);
  p->flags = flags;
  p->mode = mode;
  p->running = p->again = p->body_ran = false;
  Task* t = task_of(p);
  t->shareds = shareds_size ? reinterpret_cast<char*>(t) + task_bytes : nullptr;
  t->routine = entry;
  t->part_id = 0;
  return p;
}

// A tied task without priority or detach in a recycled block (the bulk of
// task programs): whether it runs at once is decided at its start (the
// throttle, as GOMP_task decides; the block is the same either way). The
// others go through task_alloc: untied ones (they pass themselves to
// __kmpc_omp_task again) and those with a priority or detach.
constexpr std::int32_t kTiedFlag = 0x1, kPlainMask = kTiedFlag | 0x20 | 0x40;  // priority, detach
inline std::size_t block_size(std::size_t task_size, std::size_t shareds_size) {
  return sizeof(Prefix) + ((task_size + 7) & ~std::size_t(7)) + shareds_size;
}
// One of the thread's blocks at hand: its array's, else its spare list's
// (where the blocks that other threads gave back go); null: none.
inline void* cached_block(BlockCache& c) {
  if (c.n > 0) [[likely]]
    return c.blocks[--c.n];
  Prefix* p = c.spare;
  if (p) c.spare = reinterpret_cast<Prefix*>(p->event);
  return p;
}
// task_alloc_plain's way when no block is at hand (it takes those other
// threads gave back: kmpc_task.cpp) or the task is not plain; the kmp_task_t.
Task* task_alloc_other(std::int32_t flags, std::size_t task_size, std::size_t shareds_size,
                       Routine entry);
// The kmp_task_t. Its other way is a tail call: the fast one saves no registers.
inline Task* task_alloc_plain(std::int32_t flags, std::size_t task_size, std::size_t shareds_size,
                              Routine entry) {
  const std::size_t size = block_size(task_size, shareds_size);
  if ((flags & kPlainMask) != kTiedFlag) [[unlikely]]
    return task_alloc_other(flags, task_size, shareds_size, entry);
  void* block = nullptr;
  if (size <= kSmallBlock) [[likely]]
    block = cached_block(t_small);
  else if (size <= kCachedBlock)
    block = cached_block(t_large);
  if (!block) [[unlikely]]
    return task_alloc_other(flags, task_size, shareds_size, entry);
  return task_of(task_fill(block, Mode::kPlain, flags, (task_size + 7) & ~std::size_t(7),
                           shareds_size, entry));
}
// A kPlain or kOpen task's decision, made by its start (true: it runs at once).
bool resolve_now(Prefix* p);
// Runs it now, or submits it: as task_alloc decided.
void task_start(Prefix* p);
void task_set_event(Prefix* p, std::uint64_t ev);
// Runs it on this thread now and frees it.
void run_now(Prefix* p);
// The end of a task run now (its event, its block); if0_deps: an if(0)
// detachable task's dependencies, held until the fulfil (taken over).
void task_done_now(Prefix* p, std::vector<joule_dep_t>* if0_deps = nullptr);
void task_submit(Prefix* p, const joule_dep_t* deps, std::size_t n);

}  // namespace joule::omp::kmp
