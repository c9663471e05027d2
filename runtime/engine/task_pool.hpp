// Task memory. Each thread context owns a pool of fixed-size blocks; a block
// freed by another thread goes back to its home pool through a lock-free
// list, so creation and completion on different workers never take a lock.
// Blocks larger than the pool's size come from malloc.
#pragma once

#include <atomic>
#include <cstddef>
#include <vector>

#include "task.hpp"

namespace joule::engine {

using namespace joule::core;

class TaskPool {
 public:
  // Room for the Task and an argument block of kInlineArgsBytes: a GOMP
  // task's header and firstprivates (api/adapters/omp/task.cpp) or a lambda
  // with a few captures. Derived from sizeof(Task) so that a field added to
  // Task does not silently push those tasks to aligned_alloc (instructions
  // per task: docs/performance-instructions.md).
  static constexpr std::size_t kInlineArgsBytes = 128;
  static constexpr std::size_t kBlockBytes = (sizeof(Task) + kInlineArgsBytes + 63) / 64 * 64;
  static constexpr std::size_t kBlocksPerSlab = 64;

  TaskPool() = default;
  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;
  ~TaskPool();

  // Slabs on this NUMA node (NumaMemory, recorded as worker state); -1,
  // the default: malloc (external threads). Set before the first task.
  void set_node(int node) noexcept { node_ = node; }
  int node() const noexcept { return node_; }
  // Makes the first slab now, on the calling thread (the owner, at start).
  void prepare();
  // The slabs so far (tests check where they are).
  const std::vector<void*>& slabs() const noexcept { return slabs_; }

  // A task with an argument block of args_size bytes aligned to args_align.
  // The pool may be null (a thread without a context): then malloc is used.
  static Task* make_task(TaskPool* pool, std::size_t args_size, std::size_t args_align);
  static void destroy_task(Task* t) noexcept;
  // Hands the blocks this thread freed for other pools back to them. Called
  // when the thread goes idle or leaves the runtime; never needed for
  // correctness, only to bound what a quiet thread holds (kRemoteBatch).
  static void flush_remote_frees() noexcept;
  static constexpr int kRemoteBatch = 32;

 private:
  struct FreeBlock {
    FreeBlock* next;
  };
  void* allocate_block();
  void free_block(void* p) noexcept;
  void push_remote(FreeBlock* head, FreeBlock* tail) noexcept;
  void refill();

  FreeBlock* local_ = nullptr;
  // Other threads push here: its own line, away from the owner's local_.
  alignas(64) std::atomic<FreeBlock*> remote_{nullptr};
  std::vector<void*> slabs_;
  int node_ = -1;
};

// A task's references (the engine owns task memory, so freeing is here,
// not in the core that defines Task).
//
// Drops one of the task's references (its own, or the domain's); frees it
// at zero. refs is 1 while the task lives, plus 1 while domain_refs > 0.
void release(Task* t) noexcept;

// References from the parent's dependency domain. Counted without atomics:
// only the thread running the parent's body (or completing it) touches them.
inline void domain_retain(Task* t) noexcept {
  if (t->domain_refs++ == 0) t->refs.fetch_add(1, std::memory_order_relaxed);
}
inline void domain_release(Task* t) noexcept {
  if (--t->domain_refs == 0) release(t);
}
// The lines domain_release writes: the counts, and the first line, where a
// freed block links into its pool.
inline void prefetch_for_release(const Task* t) noexcept {
  __builtin_prefetch(&t->domain_refs, 1);
  __builtin_prefetch(t, 1);
}

}  // namespace joule::engine
