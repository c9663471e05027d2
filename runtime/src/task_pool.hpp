// Task memory. Each thread context owns a pool of fixed-size blocks; a block
// freed by another thread goes back to its home pool through a lock-free
// list, so creation and completion on different workers never take a lock.
// Blocks larger than the pool's size come from malloc.
#pragma once

#include <atomic>
#include <cstddef>
#include <vector>

namespace joule::rt {

struct Task;

class TaskPool {
 public:
  static constexpr std::size_t kBlockBytes = 384;
  static constexpr std::size_t kBlocksPerSlab = 64;

  TaskPool() = default;
  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;
  ~TaskPool();

  // A task with an argument block of args_size bytes aligned to args_align.
  // The pool may be null (a thread without a context): then malloc is used.
  static Task* make_task(TaskPool* pool, std::size_t args_size, std::size_t args_align);
  static void destroy_task(Task* t) noexcept;

 private:
  struct FreeBlock {
    FreeBlock* next;
  };
  void* allocate_block();
  void free_block(void* p) noexcept;
  void refill();

  FreeBlock* local_ = nullptr;
  std::atomic<FreeBlock*> remote_{nullptr};
  std::vector<void*> slabs_;
};

}  // namespace joule::rt
