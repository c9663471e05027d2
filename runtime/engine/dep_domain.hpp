// Dependency tracking among the children of one task.
//
// The address space touched by the children is cut into non-overlapping
// fragments. Each fragment remembers its current access group (the last
// writer, or the readers / concurrent / commutative tasks since it) and the
// group before. A new access joins the current group when it is of the same
// group kind (in, concurrent, commutative) and then follows the previous
// group; otherwise it follows every task of the current group and starts a
// new one. A reduction joins only a group of reductions on the same region
// with the same operator, which shares one ReductionSlot (its private
// copies); an access that does not join closes that slot. Partial overlaps split fragments, so
// every byte is ordered exactly; an access that matches an existing fragment exactly skips the
// splitting.
//
// Only the thread running the parent task registers accesses. The lock is
// for the state dump alone (dep_domain_view.cpp), which reads a domain from
// another thread: the parent's thread takes it, uncontended, around each
// change, and the dump only try-locks it. Every live domain is listed in a
// registry the dump walks. Tasks referenced by fragments are kept alive
// (refcounted).
#pragma once

#include <cstdint>
#include <map>
#include <memory_resource>
#include <vector>

#include "address_index.hpp"
#include "block_pool.hpp"
#include "reduction_slot.hpp"
#include "small_vector.hpp"
#include "task.hpp"

namespace joule::engine {

using namespace joule::core;

class DepDomain {
 public:
  // owner: the task whose children it orders (null in unit tests).
  explicit DepDomain(Task* owner = nullptr);
  DepDomain(const DepDomain&) = delete;
  DepDomain& operator=(const DepDomain&) = delete;
  ~DepDomain();

  // Registers t's access to [start, end): adds edges from the tasks it must
  // follow and, for commutative accesses, the tokens it must hold to run;
  // a reduction (with its operator `op`) joins or starts a reduction group.
  void add(Task* t, DepKind kind, std::uintptr_t start, std::uintptr_t end,
           const joule_reduction_op_t* op = nullptr) {
    add(t, kind, start, end, op, mix(start));
  }
  // The same, with start already mixed (mix(start)).
  void add(Task* t, DepKind kind, std::uintptr_t start, std::uintptr_t end,
           const joule_reduction_op_t* op, std::uint64_t mixed);
  static std::uint64_t mix(std::uintptr_t start) noexcept {
    return AddressIndex<Fragment>::mix(start);
  }
  // Starts loading what add() of a region at `start` reads first, so that
  // a task's accesses miss in parallel rather than one after another.
  void prefetch(std::uintptr_t start) const noexcept { by_start_.prefetch(start); }
  void prefetch_mixed(std::uint64_t mixed) const noexcept { by_start_.prefetch_mixed(mixed); }
  // Forgets everything (all children have finished).
  void clear() noexcept;
  // The same, but keeps the fragments when there are few, so an iterative
  // code that touches the same data every iteration finds them again on the
  // exact-address path instead of rebuilding them. Only the fragments used
  // since the last reset hold tasks; reset() drops those in one pass that
  // prefetches ahead, so the misses on finished tasks overlap instead of
  // stalling the creation of the next iteration's tasks one by one.
  void reset() noexcept;
  std::size_t fragment_count() const noexcept { return frags_.size(); }

  // Recycling (DomainCache): the owner finished, so every child has. retire()
  // empties the domain as reset() does, keeping the fragments unless they
  // proved useless (below), and takes it out of the dump's registry;
  // adopt() gives it to a new owner. A domain handed on with fragments
  // keeps them at its next retire() only if its new owner found at least
  // one of them again for every two it had to make: a code whose successive
  // parents order different data stops paying for a larger tree.
  void retire() noexcept;
  void adopt(Task* owner) noexcept;
  // reset() keeps at most this many fragments (more: it clears).
  static constexpr std::size_t kKeepFragments = std::size_t(1) << 16;

  Task* owner() const noexcept { return owner_; }

 private:
  struct Group {
    // Four inline: a cell read by up to three tasks before its next writer
    // (a stencil's neighbours) needs no heap block.
    SmallVector<Task*, 4> tasks;
    CommutativeToken* token = nullptr;
    ReductionSlot* slot = nullptr;  // owned by slots_
  };
  struct Access {
    DepKind kind;
    CommutativeToken* token = nullptr;  // made on first use
    ReductionSlot* slot = nullptr;      // the reduction group t joins or starts
  };
  struct Fragment {
    std::uintptr_t end = 0;
    DepKind kind = DepKind::none;
    DepKind prev_kind = DepKind::none;  // prev's kind: read only by the state dump
    std::uint32_t epoch = 0;            // reset() count when last used; current: in touched_
    Group cur;
    Group prev;
  };
  using Map = std::map<std::uintptr_t, Fragment, std::less<std::uintptr_t>,
                       BlockAllocator<std::pair<const std::uintptr_t, Fragment>>>;

  Map::iterator first_at_or_after(std::uintptr_t start);
  Map::iterator emplace(Map::iterator hint, std::uintptr_t start, std::uintptr_t end,
                        std::uint64_t mixed);
  void split(Map::iterator it, std::uintptr_t at);
  void refresh(Fragment& f) {
    if (f.epoch != epoch_) [[unlikely]]
      rejoin(f);
  }
  void rejoin(Fragment& f);
  void make_room_to_track();
  void drop_touched() noexcept;
  void add_locked(Task* t, DepKind kind, std::uintptr_t start, std::uintptr_t end,
                  const joule_reduction_op_t* op, Fragment* at_start, std::uint64_t mixed);
  void apply(Fragment& f, Task* t, Access& a);
  void start_group(Fragment& f, Task* t, Access& a);
  void join_group(Fragment& f, Task* t, Access& a);
  void follow_group(Fragment& f, Task* t, Access& a);
  ReductionSlot* reduction_group(Task* t, std::uintptr_t start, std::uintptr_t end,
                                 const joule_reduction_op_t* op, const Fragment* first);
  void end_reductions() noexcept;
  static void append(Group& g, Task* t);
  static void prune(Group& g) noexcept;
  static Group copy(const Group& g);
  static void drop(Group& g) noexcept;

  std::pmr::unsynchronized_pool_resource pool_;  // ReductionMember nodes
  BlockPool nodes_;                              // frags_'s nodes
  Map frags_{Map::allocator_type(&nodes_)};
  AddressIndex<Fragment> by_start_;  // start -> fragment, for the exact fast path
  std::uint32_t epoch_ = 0;          // bumped by reset()
  // Since the last reset: fragments made, and older ones used again.
  std::uint32_t made_ = 0;
  std::uint32_t reused_ = 0;
  bool inherited_ = false;   // adopted with fragments from an earlier owner
  bool registered_ = false;  // listed in the dump's registry
  // Fragments used in this epoch: the only ones holding tasks.
  std::vector<Fragment*> touched_;
  // Reduction groups since the last reset: folded (if still open) and
  // freed when the domain ends, when every member has completed.
  std::vector<ReductionSlot*> slots_;
  ReductionMember* members_ = nullptr;  // Task::reductions nodes, from pool_

  void clear_unlocked() noexcept;
  void reset_unlocked() noexcept;
  Task* owner_ = nullptr;
  mutable SpinLock lock_;  // the owner's changes vs the dump's view
  // The registry's links (dep_domain_view.cpp), guarded by its shard's lock.
  DepDomain* reg_prev_ = nullptr;
  DepDomain* reg_next_ = nullptr;
  friend struct DomainRegistry;
  friend class DomainReader;  // the dump's read (dep_domain_view.cpp)
};

}  // namespace joule::engine
