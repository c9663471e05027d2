// OpenMP task reductions (task_reduction, in_reduction, reduction(task,...)
// and taskloop reduction) in GCC's ABI. GCC hands the runtime a descriptor,
// an array of words (docs/openmp-entry-points.md, "Task reductions"):
//   [0] variables, [1] bytes per private block, [2] alignment on entry and
//   the blocks' base on return, [3] reserved, [4] the enclosing descriptor
//   (the runtime chains them), [5] [6] the runtime's, then per variable
//   [7+3i] the original's address, [8+3i] its offset in a block, [9+3i]
//   the runtime's.
// The runtime allocates one zeroed block per thread number of the team; the
// compiled code initialises a block on first use (a flag byte after each
// copy) and, after the construct, folds blocks 0..k-1 into the originals,
// k being omp_get_num_threads() (GCC takes it for a constant within the
// function) or, for parallel, GOMP_parallel_reductions' return value.
// Implicit tasks and taskloop chunks index the blocks by
// omp_get_thread_num(), in_reduction tasks through
// GOMP_task_reduction_remap. So every task that sees a reduction runs
// holding a seat of its team (seats.cpp): a thread number nobody else
// uses at the same time, the index of its block.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace joule::omp {

struct Team;
struct WorkShare;

enum class ReductionKind { kTaskgroup, kTaskloop, kParallel, kWorkshare };

struct Reduction {
  ReductionKind kind = ReductionKind::kTaskgroup;
  std::atomic<int> attached{0};  // worksharing: members that entered the construct
  Team* team = nullptr;          // whose thread numbers index the blocks (null: its region ended)
  int blocks = 0;
  std::uintptr_t base = 0, chunk = 0;
  std::atomic<int> refs{1};  // worksharing: members that have not unregistered
};

// Allocates `blocks` zeroed blocks for `team` and fills desc[2], [5], [6].
Reduction* reduction_create(std::uintptr_t* desc, ReductionKind kind, Team* team, int blocks);
// Another member's copy of a worksharing descriptor: the same blocks.
void reduction_attach(std::uintptr_t* desc, Reduction* r);
Reduction* reduction_of(const std::uintptr_t* desc);
void reduction_free(Reduction* r);
// GOMP_task_reduction_remap for the calling task.
void reduction_remap(std::size_t cnt, std::size_t cntorig, void** ptrs);

// ---- worksharing reduction(task, ...) (reduction_entry.cpp) ----
// ws_enter's set-up (first member): the blocks, one reference per member.
Reduction* make_workshare_reduction(std::uintptr_t* desc);
// Each member after ws_enter: its descriptor gets the blocks.
void attach_workshare_reduction(std::uintptr_t* desc);

}  // namespace joule::omp
