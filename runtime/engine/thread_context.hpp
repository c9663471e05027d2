// Per-thread state of the runtime: which worker this thread is (if any),
// which task it is running, and its task pool. Workers and external threads
// (any thread that spawns) both have one.
#pragma once

#include <atomic>
#include <cstdint>

#include "backoff.hpp"
#include "task.hpp"
#include "wait_slot.hpp"

namespace joule::engine {

using namespace joule::core;

class Worker;
struct Spare;

// A field its own thread writes and a diagnostic reader (state_dump.cpp)
// reads from another thread: an atomic with release stores and acquire
// loads, so the reader sees the task a pointer names as its writer did. On
// x86-64 both are the plain moves the hot path had.
template <class T>
class Published {
 public:
  constexpr Published() = default;
  constexpr Published(T v) noexcept : v_(v) {}  // NOLINT: used as the plain field it replaces
  Published(const Published& o) noexcept : v_(o.get()) {}
  Published& operator=(const Published& o) noexcept {
    set(o.get());
    return *this;
  }
  Published& operator=(T v) noexcept {
    set(v);
    return *this;
  }
  operator T() const noexcept { return get(); }  // NOLINT: as above
  T operator->() const noexcept { return get(); }
  T get() const noexcept { return v_.load(std::memory_order_acquire); }
  void set(T v) noexcept { v_.store(v, std::memory_order_release); }

 private:
  std::atomic<T> v_{};
};

struct ThreadContext {
  std::uint64_t generation = 0;        // runtime instance this context was set up for
  Worker* worker = nullptr;            // null on external threads
  Published<Task*> current = nullptr;  // running task, or the thread's root task
  Task* root = nullptr;                // implicit task owning this thread's top-level tasks
  // A worker's parent for independent tasks (Runtime::spawn_root), made on
  // first use. Not `root`: a worker's loop is at its top level while
  // current == root (TaskLifecycle::hold_child), and its root is null.
  Task* spawn_root = nullptr;
  TaskPool* pool = nullptr;
  // Immediate-successor slot: a task a finishing task released, run next
  // here (its inputs are in this cache). Never a task just created: those
  // go to the deque, so a body's children run newest first.
  Task* next = nullptr;
  WaitSlot* slot = nullptr;  // where this thread sleeps (Idle)
  // Where it sleeps while a task it runs is blocked: a slot no push wakes,
  // made at the first block (spare_threads.hpp).
  WaitSlot* block_slot = nullptr;
  Spare* spare = nullptr;  // this thread is a spare (spare_threads.hpp)
  // Set while a resumed task waits for the seat (CPU) this thread runs on:
  // it gives the seat up at its next task boundary (Spares::yield_seat).
  const std::atomic<bool>* seat_wanted = nullptr;
  bool in_loop = false;    // inside a scheduling loop: `next` will be run
  bool searching = false;  // counted by Idle as looking for work
  // Finished children of held_parent not yet subtracted from its pending
  // count (TaskLifecycle::hold_child): only at a worker loop's top level.
  bool may_hold = false;
  Task* held_parent = nullptr;
  std::int64_t held = 0;
  std::uint32_t creations = 0;  // since the last throttle check
  // Creations before the next check: far below the limit the check (a sum
  // over every worker) need not run for a while (TaskLifecycle::throttle).
  std::uint32_t throttle_every = 64;
  int help_depth = 0;  // nested waits on this thread's stack
  // While it points to a positive count, this thread's waits run only the
  // waiting task's descendants (joule_restrict_waits_by: a task below holds
  // a lock). The count is the layer's thread_local: it lives as long as this.
  const int* descendants_only = nullptr;
  std::uint64_t next_id = 0;  // task ids: thread slot << 40 | sequence
  // The kernel's id of this thread (gettid), set when it becomes a worker or
  // attaches (spares do): the dump names it so that a user can find the
  // thread in gdb ("LWP"), `top -H` or perf.
  Published<int> tid = 0;
  // What this thread waits for while it helps (WaitNote), for the state
  // dump: a short text and the task concerned; null when not waiting.
  Published<const char*> waiting_for = nullptr;
  Published<Task*> waiting_task = nullptr;
  // The same for every wait on this thread's stack, outermost first (waits
  // nest: a task run meanwhile may wait too); the dump reads the first
  // wait_depth of them, at most kWaitDepth.
  static constexpr int kWaitDepth = 8;
  struct Wait {
    Published<const char*> what = nullptr;
    Published<Task*> task = nullptr;
  };
  Wait waits[kWaitDepth];
  Published<int> wait_depth = 0;
  // Blocks of one other thread's pool freed here, handed back in one push
  // (TaskPool::free_block): one contended atomic per batch, not per task.
  struct RemoteFrees {
    TaskPool* home = nullptr;
    void* head = nullptr;
    void* tail = nullptr;
    int count = 0;
  } remote_frees;
};

// How many state dumps read the wait notes now (state_dump_text.cpp): a
// wait does not end while one reads, so the task its note names (which
// cannot finish during its wait) stays alive while the dump reads it.
inline std::atomic<int> g_dump_readers{0};

// Names what the thread waits for during a wait (taskwait, a blocked task,
// an undeferred task's dependencies ...); the previous note comes back
// when the wait ends (waits nest: a task run meanwhile may wait too).
class WaitNote {
 public:
  WaitNote(ThreadContext& ctx, const char* what, Task* task) noexcept
      : ctx_(ctx), what_(ctx.waiting_for), task_(ctx.waiting_task), depth_(ctx.wait_depth.get()) {
    ctx.waiting_for = what;
    ctx.waiting_task = task;
    if (depth_ < ThreadContext::kWaitDepth) {
      ctx.waits[depth_].what = what;
      ctx.waits[depth_].task = task;
    }
    ctx.wait_depth = depth_ + 1;
  }
  ~WaitNote() {
    ctx_.wait_depth = depth_;
    // The depth before the readers (a full fence here, the readers'
    // increment there): a dump that still saw this wait is waited for.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    while (g_dump_readers.load(std::memory_order_acquire) != 0) core::cpu_relax();
    ctx_.waiting_for = what_;
    ctx_.waiting_task = task_;
  }
  WaitNote(const WaitNote&) = delete;
  WaitNote& operator=(const WaitNote&) = delete;

 private:
  ThreadContext& ctx_;
  const char* what_;
  Task* task_;
  int depth_;
};

// The calling thread's context and the count of runtime starts, defined in
// runtime.cpp; a context whose generation differs is stale (set up for an
// earlier runtime). Read inline: every task's creation and run looks here.
// initial-exec: the runtime is linked at start-up, and the default model
// would make every access a call to __tls_get_addr. constinit: a context
// that needed dynamic initialisation would put a guard call on every
// access (about 40 instructions per task on path_costs).
namespace contexts {
[[gnu::tls_model("initial-exec")]] extern constinit thread_local ThreadContext t_context;
extern std::atomic<std::uint64_t> g_generation;
}  // namespace contexts

inline ThreadContext& thread_context() noexcept { return contexts::t_context; }
// The calling thread's pool, null when its context is stale.
inline TaskPool* current_pool() noexcept {
  const ThreadContext& ctx = contexts::t_context;
  return ctx.generation == contexts::g_generation.load(std::memory_order_relaxed) ? ctx.pool
                                                                                  : nullptr;
}
// gettid(2) of the calling thread.
int os_thread_id() noexcept;

}  // namespace joule::engine
