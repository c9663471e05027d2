// Private copies for one group of reducing tasks.
//
// Consecutive reduction accesses with the same operator on the same region
// form a group (dep_domain.hpp) whose tasks may run together: each thread
// that runs one gets its own copy of the region, allocated on first use and
// set to the operator's identity, as Nanos6 keeps one copy per CPU
// (Nanos6 user guide, "Task reductions"). The copies are folded into the
// data once the group is closed (a later access to the data that is not a
// member) and every member has completed: the one of those two events that
// comes last does it, before anything that follows the group can run. The
// owning domain closes its open groups when it ends (taskwait, the parent's
// completion), so a group that nothing followed is folded there.
//
// A group registered below a task that is itself a member of a reduction
// on the same data (a `weakreduction` parent, or a strong one whose
// children reduce into its copy) folds into the folding thread's copy of
// the parent's group, never into the data: the parent's siblings may be
// folding into theirs at that very moment.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "task.hpp"

namespace joule::engine {

using namespace joule::core;

class ReductionSlot {
 public:
  // The group over [start, end) combining with `op`; its copies fold into
  // the data, or into `into`'s copy at `into_offset` when `into` is set.
  ReductionSlot(std::uintptr_t start, std::uintptr_t end, const joule_reduction_op_t* op,
                ReductionSlot* into, std::size_t into_offset) noexcept;
  ~ReductionSlot();
  ReductionSlot(const ReductionSlot&) = delete;
  ReductionSlot& operator=(const ReductionSlot&) = delete;

  // Only the thread registering the domain's accesses calls these three.
  // True while a reduction on [start, end) with `op` may still join.
  bool joinable(std::uintptr_t start, std::uintptr_t end,
                const joule_reduction_op_t* op) const noexcept;
  void enter() noexcept { pending_.fetch_add(1, std::memory_order_relaxed); }
  // No task joins any more; folds now if every member has completed.
  void close() noexcept;
  bool closed() const noexcept { return closed_; }

  // A member completed (any thread): folds if it was the last after close.
  void leave() noexcept;

  // The calling thread's copy of the region (first call: allocated, set to
  // the identity). Throws std::bad_alloc.
  void* private_copy();
  // Where `addr` lies in the region, seen from the calling thread: in the
  // data or in this thread's copy. Returns the offset, or -1.
  std::ptrdiff_t offset_of(std::uintptr_t addr, std::size_t bytes) const noexcept;
  std::uintptr_t start() const noexcept { return start_; }
  std::size_t bytes() const noexcept { return bytes_; }

 private:
  struct Copy {
    Copy* next;
    const void* owner;  // ThreadContext of a thread without a direct entry
    // the data follows, 64-byte aligned
  };
  static constexpr int kDirect = 64;  // workers 0..63 find their copy in one load
  static constexpr std::size_t kHeader = 64;

  Copy* find_mine() const noexcept;
  Copy* make_copy(const void* owner);
  static void* data_of(Copy* c) noexcept { return reinterpret_cast<char*>(c) + kHeader; }
  void fold() noexcept;

  std::uintptr_t start_;
  std::size_t bytes_;
  const joule_reduction_op_t* op_;
  ReductionSlot* into_;
  std::size_t into_offset_;
  bool closed_ = false;
  // Members still to complete, plus one while the group is open.
  std::atomic<std::int64_t> pending_{1};
  std::atomic<Copy*> direct_[kDirect] = {};
  std::atomic<Copy*> others_{nullptr};  // external threads, workers >= kDirect
};

// One task's membership of one group: a list per task, newest first, kept
// by the domain that registered it until that domain ends.
struct ReductionMember {
  ReductionSlot* slot;
  ReductionMember* next;         // the task's next group
  ReductionMember* domain_next;  // every membership of the domain, to free them
};

// The copy the running task `t` updates for the data at `addr`: its own
// group's (or, for a task run inline, the nearest enclosing task's) copy
// seen from this thread. A task run inline with no such group, or one whose
// reduction had no operator (commutative, in place), gets `addr` itself.
// Any other task: joule::error naming the address.
void* reduction_private(Task* t, const void* addr);

}  // namespace joule::engine
