// The task: what every layer (dependencies, scheduler, workers) shares.
//
// Life cycle: created (preds = kPredBias guard) -> dependencies registered
// -> submitted (guard swapped for the edge count) -> ready when preds
// reaches 0 -> run -> body done ->
// complete when the body is done and every child has completed: successors
// are released, the parent is told, and the task's own reference is dropped.
// Memory is freed when refs (own + one per dependency-domain entry) hits 0.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>

#include "joule/types.h"
#include "small_vector.hpp"
#include "spin_lock.hpp"
#include "wait_slot.hpp"

// The engine's objects a task points to; opaque here.
namespace joule::engine {
class DepDomain;
class CommutativeToken;
class ReductionSlot;
struct ReductionMember;
class TaskPool;
}  // namespace joule::engine

namespace joule::core {

using engine::CommutativeToken;
using engine::DepDomain;
using engine::ReductionMember;
using engine::ReductionSlot;
using engine::TaskPool;

enum class DepKind : std::uint8_t {
  none = 0,
  in = JOULE_DEP_IN,
  out = JOULE_DEP_OUT,
  inout = JOULE_DEP_INOUT,
  commutative = JOULE_DEP_COMMUTATIVE,
  concurrent = JOULE_DEP_CONCURRENT,
  reduction = JOULE_DEP_REDUCTION,  // with an operator: private copies (reduction_slot.hpp)
};

namespace task_flag {
inline constexpr std::uint16_t final = 1;       // descendants run inline
inline constexpr std::uint16_t undeferred = 2;  // if(0): the creator runs it once ready
inline constexpr std::uint16_t root = 4;        // implicit task of a thread
inline constexpr std::uint16_t submitted = 8;
inline constexpr std::uint16_t serial = 16;  // runtime runs tasks inline (serial_inline)
// Named by a dependency domain: other tasks may link to it, so it publishes
// `finished` and its successors, and the domain holds a reference. Tasks
// without it (no dependencies) complete without either.
inline constexpr std::uint16_t tracked = 32;
// A layer above the engine asked to run before the body (the engine's
// TaskHook: host tasks naming data a device holds).
inline constexpr std::uint16_t hooked = 64;
}  // namespace task_flag

inline constexpr std::int64_t kBodyBias = std::int64_t(1) << 62;
// Predecessors that finish while the task is still being registered
// decrement preds below the bias, never to 0; submit then adds
// (edges - kPredBias) in one step, so registration needs no atomics.
inline constexpr std::int32_t kPredBias = std::int32_t(1) << 30;
// `pending` of a body sleeping in taskwait once all its children are done
// (see Task::begin_sleep_wait). Never a value pending takes otherwise: a
// running body keeps it within 2^61 below kBodyBias, a finished one below 2^61.
inline constexpr std::int64_t kWaitBase = std::int64_t(1) << 61;

struct Task {
  // Line 0: set at creation. Afterwards only the thread running the body
  // writes here (spawned), so a parent with many children running elsewhere
  // keeps this line in its own cache.
  joule_task_fn_t fn = nullptr;
  void* args = nullptr;
  Task* parent = nullptr;
  const char* label = nullptr;
  std::uint64_t id = 0;      // unique per runtime run: creating thread in the high bits
  TaskPool* home = nullptr;  // pool the block came from (nullptr: malloc)
  // Children are counted without a shared read-modify-write on the creation
  // path: `spawned` is written only by the thread running the body, and
  // `pending` starts at kBodyBias and loses one per completed child. When
  // the body returns, (spawned - kBodyBias) is added, so pending reaches 0
  // exactly when body and children are all done.
  std::atomic<std::int64_t> spawned{0};
  std::uint16_t flags = 0;
  // Commutative tokens already taken by the creator of an undeferred task.
  // Its own field: other threads read `flags` while the creator sets this.
  bool tokens_held = false;
  // Undeferred (if(0), taskwait_on, an OpenMP master): its creator runs it
  // as soon as preds reaches 0, so the predecessor that brings it there must
  // read this before its decrement, never after (the task may be done and
  // freed by then). Set at creation, before any other thread sees the task.
  bool creator_runs = false;
  // ALPI's suspend: the body runs again instead of completing when it
  // returns (engine Blocking::resubmit). Only the body's thread touches it.
  bool suspended = false;
  // Its body ran again after a suspend: see `runner`.
  bool resumed = false;

  // Line 1: what other threads update (completing children, predecessors).
  alignas(64) std::atomic<std::int64_t> pending{kBodyBias};
  std::atomic<std::int32_t> preds{kPredBias};
  std::uint32_t suppressed = 0;  // further exceptions dropped (guarded by lock)
  // Where the thread that runs (or, undeferred, will run) the body sleeps:
  // set before any child or predecessor can read it, so the child that
  // completes last, or the predecessor that makes an undeferred task ready,
  // wakes that thread alone. Read before their decrement, never after.
  // A suspended task's next run (ALPI) sets it again while children of an
  // earlier run may be reading it: atomic (relaxed, the plain moves), and
  // such a child may wake the earlier run's thread, so a resumed task's
  // waits sleep with a time limit (help_until.hpp).
  std::atomic<WaitSlot*> runner{nullptr};
  std::int32_t pred_edges = 0;   // edges added; only the creating thread
  std::int32_t domain_refs = 0;  // fragments naming it; only the parent's thread
  std::atomic<std::int32_t> refs{1};
  std::atomic<bool> finished{false};
  // The Nanos6 blocking API / ALPI (engine Blocking): 0 running,
  // 1 blocked, 2 unblocked before or while blocked.
  std::atomic<std::uint8_t> blocking{0};
  // External events outstanding (ALPI); each is also one hold on completion.
  std::atomic<std::int32_t> events{0};
  SpinLock lock;  // guards successors, exception, suppressed
  // Ready-queue links, owned by whichever queue holds the task.
  Task* q_next = nullptr;
  Task* q_prev = nullptr;
  double cost = 0.0;
  std::uint64_t affinity = JOULE_NO_AFFINITY;

  int priority = 0;
  // The worker that last wrote data this task writes (set when such a
  // predecessor completes; -1: none yet). Policies that follow data (locality)
  // queue the task there, where that data is still in cache.
  std::atomic<std::int16_t> data_home{-1};
  // Tagged pointers (see tag_same_data): untag before use.
  SmallVector<Task*, 4> successors;
  SmallVector<CommutativeToken*, 1> tokens;  // held while running (commutative)
  DepDomain* domain = nullptr;               // children's dependencies (lazy)
  std::exception_ptr exception;              // first one thrown below this task
  // Reduction groups it belongs to, newest first: a list the parent's
  // domain owns (reduction_slot.hpp); left at completion.
  ReductionMember* reductions = nullptr;

  bool has(std::uint16_t f) const noexcept { return (flags & f) != 0; }
  // All children submitted so far have completed (valid while the body runs).
  bool children_done() const noexcept {
    return pending.load(std::memory_order_seq_cst) ==
           kBodyBias - spawned.load(std::memory_order_relaxed);
  }

  // A body about to sleep in taskwait rebases `pending` so that "every child
  // done" reads kWaitBase: the child completing last sees that in its own
  // decrement and wakes the sleeper, and no completion has to read
  // `spawned`. Only the body's thread calls these, in pairs.
  std::int64_t begin_sleep_wait() noexcept {
    const std::int64_t delta = kWaitBase - kBodyBias + spawned.load(std::memory_order_relaxed);
    pending.fetch_add(delta, std::memory_order_seq_cst);
    return delta;
  }
  bool sleep_wait_done() const noexcept {
    return pending.load(std::memory_order_seq_cst) == kWaitBase;
  }
  void end_sleep_wait(std::int64_t delta) noexcept {
    pending.fetch_sub(delta, std::memory_order_seq_cst);
  }
};

// Four cache lines: the creator writes each line of a new task and the
// worker that runs it reads each one (a thief from another core), so a
// fifth line is one more transfer per task, and a pool block of 384 bytes
// (task_pool.hpp) instead of 448.
static_assert(sizeof(Task) <= 256, "Task outgrew four cache lines");

// A successor edge carries a tag in the pointer's low bit (tasks are 64-byte
// aligned) when the successor writes data the predecessor wrote: the data a
// locality policy wants to find in the cache of the worker that ran pred.
inline Task* tag_same_data(Task* t) noexcept {
  return reinterpret_cast<Task*>(reinterpret_cast<std::uintptr_t>(t) | 1u);
}
inline Task* untag(Task* t) noexcept {
  return reinterpret_cast<Task*>(reinterpret_cast<std::uintptr_t>(t) & ~std::uintptr_t(1));
}
inline bool is_same_data(const Task* t) noexcept {
  return (reinterpret_cast<std::uintptr_t>(t) & 1u) != 0;
}

// Adds an edge pred -> succ unless pred already finished. Safe from any thread.
// same_data: succ writes what pred wrote (see tag_same_data).
inline void add_edge(Task* pred, Task* succ, bool same_data = false) {
  if (pred == succ || pred->finished.load(std::memory_order_acquire)) return;
  pred->lock.lock();
  if (!pred->finished.load(std::memory_order_relaxed) &&
      (pred->successors.empty() || untag(pred->successors.back()) != succ)) {
    ++succ->pred_edges;
    pred->successors.push_back(same_data ? tag_same_data(succ) : succ);
  }
  pred->lock.unlock();
}

}  // namespace joule::core
