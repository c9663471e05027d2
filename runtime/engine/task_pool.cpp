#include "task_pool.hpp"

#include <algorithm>
#include <cstdlib>
#include <new>

#include "numa_memory.hpp"
#include "task.hpp"
#include "thread_context.hpp"

namespace joule::engine {

using namespace joule::core;
namespace {

constexpr std::size_t kTaskAlign = 64;

constexpr std::size_t align_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

#ifdef JOULE_POOL_PASSTHROUGH
constexpr bool kPassthrough = true;  // sanitizers see every allocation
#else
constexpr bool kPassthrough = false;
#endif

}  // namespace

TaskPool::~TaskPool() {
  for (void* s : slabs_)
    if (node_ < 0 || !NumaMemory::instance().release(s)) std::free(s);
}

void TaskPool::prepare() {
  if (!kPassthrough && !local_ && slabs_.empty()) refill();
}

Task* TaskPool::make_task(TaskPool* pool, std::size_t args_size, std::size_t args_align) {
  if (args_align < 16) args_align = 16;
  const std::size_t args_offset = align_up(sizeof(Task), args_align);
  const std::size_t total = args_offset + args_size;
  const bool pooled = !kPassthrough && pool && total <= kBlockBytes && args_align <= kTaskAlign;
  void* mem = pooled ? pool->allocate_block()
                     : std::aligned_alloc(std::max(kTaskAlign, args_align),
                                          align_up(total, std::max(kTaskAlign, args_align)));
  if (!mem) throw std::bad_alloc();
  // Default-, not value-initialised: the member initialisers set every
  // field, and `Task()` would first zero all 256 bytes (a rep stos).
  Task* t = ::new (mem) Task;
  t->home = pooled ? pool : nullptr;
  t->args = args_size ? static_cast<char*>(mem) + args_offset : nullptr;
  return t;
}

void TaskPool::destroy_task(Task* t) noexcept {
  TaskPool* home = t->home;
  if (!home) {
    // A state dump may be reading this task's id and label as a thread's
    // running task (state_dump_text.cpp, read_running). Pool blocks stay
    // mapped; this memory goes back to malloc, so a dump that may have
    // loaded it is waited for (its count rises before that load): a cost
    // only tasks too large for a block, and sanitizer builds, pay.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    while (g_dump_readers.load(std::memory_order_acquire) != 0) core::cpu_relax();
  }
  t->~Task();
  if (home)
    home->free_block(t);
  else
    std::free(t);
}

void* TaskPool::allocate_block() {
  if (!local_) refill();
  FreeBlock* b = local_;
  local_ = b->next;
  return b;
}

void TaskPool::refill() {
  local_ = remote_.exchange(nullptr, std::memory_order_acquire);
  if (local_) return;
  constexpr std::size_t bytes = kBlockBytes * kBlocksPerSlab;
  char* slab = node_ >= 0 ? static_cast<char*>(NumaMemory::instance().allocate_on(
                                bytes, node_, MemoryUse::worker_state))
                          : static_cast<char*>(std::aligned_alloc(kTaskAlign, bytes));
  if (!slab) throw std::bad_alloc();
  slabs_.push_back(slab);
  for (std::size_t i = kBlocksPerSlab; i-- > 0;) {
    auto* b = reinterpret_cast<FreeBlock*>(slab + i * kBlockBytes);
    b->next = local_;
    local_ = b;
  }
}

void TaskPool::free_block(void* p) noexcept {
  auto* b = static_cast<FreeBlock*>(p);
  TaskPool* mine = current_pool();
  if (mine == this) {
    b->next = local_;
    local_ = b;
    return;
  }
  if (!mine) {  // a thread outside this runtime: no batch to keep
    push_remote(b, b);
    return;
  }
  auto& batch = thread_context().remote_frees;
  if (batch.home != this) {
    flush_remote_frees();
    batch.home = this;
    batch.tail = b;
  }
  b->next = static_cast<FreeBlock*>(batch.head);
  batch.head = b;
  if (++batch.count == kRemoteBatch) flush_remote_frees();
}

void TaskPool::flush_remote_frees() noexcept {
  auto& batch = thread_context().remote_frees;
  if (batch.count > 0)
    batch.home->push_remote(static_cast<FreeBlock*>(batch.head),
                            static_cast<FreeBlock*>(batch.tail));
  batch = ThreadContext::RemoteFrees{};
}

// Only the owner takes from remote_, and it takes the whole list at once,
// so a plain CAS push has no ABA problem.
void TaskPool::push_remote(FreeBlock* head, FreeBlock* tail) noexcept {
  FreeBlock* old = remote_.load(std::memory_order_relaxed);
  do {
    tail->next = old;
  } while (!remote_.compare_exchange_weak(old, head, std::memory_order_release,
                                          std::memory_order_relaxed));
}

void release(Task* t) noexcept {
  // No dependency domain ever held an untracked task: this is its only
  // reference, and nobody else can be counting.
  if (!t->has(task_flag::tracked) && t->refs.load(std::memory_order_relaxed) == 1)
    return TaskPool::destroy_task(t);
  if (t->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) TaskPool::destroy_task(t);
}

}  // namespace joule::engine
