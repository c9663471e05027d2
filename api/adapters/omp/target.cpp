// Target regions on the host (OpenMP 5.2 §13.8). joule has no device, so
// every map is the identity and a region runs as libgomp's host fallback
// runs it: fn(hostaddrs) on the encountering thread, as the initial task
// of a new contention group (level 0, a team of one, its own thread
// limit), after its firstprivate data is copied into a block of its own.
// The target task is an explicit task (GOMP_task): nowait defers it with
// its dependences; without nowait it is undeferred, after them.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "joule/team.h"
#include "target.hpp"
#include "team.hpp"

namespace joule::omp {
namespace {

// A map kind's low byte is the kind, its high byte log2 of the alignment.
constexpr unsigned kKindMask = 0xff;
constexpr unsigned kFirstprivate = 12;  // GOMP_MAP_FIRSTPRIVATE: a copy of sizes[i] bytes
// GOMP_TARGET_ARG_*: a word holds the device bits, the argument's id and
// its value (<< 16), or says that the next word holds the value.
constexpr std::uintptr_t kArgDeviceMask = 0x7f;
constexpr std::uintptr_t kArgSubsequent = 0x80;
constexpr std::uintptr_t kArgIdMask = 0xff00;
constexpr std::uintptr_t kArgThreadLimit = 2u << 8;
constexpr int kArgValueShift = 16;

// What GCC passes for one region.
struct TargetCall {
  void (*fn)(void*);
  std::size_t mapnum;
  void** hostaddrs;
  const std::size_t* sizes;
  const unsigned short* kinds;  // null: the pre-4.5 GOMP_target (no firstprivate)
  int thread_limit;             // 0: no clause
};

// The region's block: this header, the addresses fn gets, the copies.
struct Region {
  void (*fn)(void*);
  int thread_limit;
  std::size_t mapnum;
  void** addrs() { return reinterpret_cast<void**>(this + 1); }
};

bool is_firstprivate(const TargetCall& c, std::size_t i) {
  return c.kinds && (c.kinds[i] & kKindMask) == kFirstprivate;
}
std::size_t align_of(const TargetCall& c, std::size_t i) {
  return std::size_t(1) << (c.kinds[i] >> 8);
}
std::size_t round_up(std::size_t n, std::size_t a) { return (n + a - 1) & ~(a - 1); }

// The block's bytes; *align: the largest alignment in it.
std::size_t block_size(const TargetCall& c, std::size_t* align) {
  std::size_t size = sizeof(Region) + c.mapnum * sizeof(void*);
  *align = alignof(Region);
  for (std::size_t i = 0; i < c.mapnum; ++i) {
    if (!is_firstprivate(c, i)) continue;
    *align = std::max(*align, align_of(c, i));
    size = round_up(size, align_of(c, i)) + c.sizes[i];
  }
  return size;
}

// GOMP_task's cpyfn: fills the block at dst (aligned to block_size's
// alignment) from the TargetCall at src. firstprivate_int values travel
// in the address slot itself and are passed as they are.
void fill_block(void* dst, void* src) {
  const auto& c = *static_cast<const TargetCall*>(src);
  auto* r = static_cast<Region*>(dst);
  r->fn = c.fn;
  r->thread_limit = c.thread_limit;
  r->mapnum = c.mapnum;
  void** addrs = r->addrs();
  std::size_t at = sizeof(Region) + c.mapnum * sizeof(void*);
  for (std::size_t i = 0; i < c.mapnum; ++i) {
    addrs[i] = c.hostaddrs[i];
    if (!is_firstprivate(c, i)) continue;
    at = round_up(at, align_of(c, i));
    char* copy = static_cast<char*>(dst) + at;
    if (c.sizes[i]) std::memcpy(copy, c.hostaddrs[i], c.sizes[i]);
    addrs[i] = copy;
    at += c.sizes[i];
  }
}

// The target task's body: the region on this thread, outside any team,
// as an undeferred joule task (its tasks get a dependency domain of their
// own): a team of one at level 0 whose thread limit a parallel inside it
// obeys. A region met in a team or a task may find the workers busy: its
// inner teams may seal (members.cpp).
//
// The thread keeps its seat of the enclosing team (seats.cpp) while the
// region runs. With in_reduction on a target, the target task is the task
// that participates in the reduction (OpenMP 5.2 §5.5.10, 5.0 §2.19.5.6),
// but GCC 12 calls GOMP_task_reduction_remap in the encountering task,
// before GOMP_target_ext (and drops nowait there; gcc -fopenmp
// -fdump-tree-optimized shows both), and the region adds to that address:
// the copy in the block of the seat the encountering thread holds. Had
// the thread left its seat for the whole region, a worker running one of
// the team's in_reduction tasks meanwhile could borrow that seat and
// add to the same copy at the same time: one addition lost. Tasks of the
// enclosing team that this thread runs while the region waits may need a
// thread number too: each wait in the region leaves the kept seat
// (SeatAway), as a member's wait leaves its own, and takes it back.
void region_task(void* block) {
  auto* r = static_cast<Region*>(block);
  ThreadState& s = self();
  const ThreadState saved = s;
  const SeatKept kept(saved);
  const Team* outer = current_team();
  Team team;
  team.thread_limit = r->thread_limit;
  seats_reset(&team, 1);
  s = ThreadState{};
  s.team = &team;
  s.task_tag = &team;  // the region's initial task owns its locks (lock_owner.cpp)
  s.in_task = saved.in_task || outer->n > 1;
  seat_take(&team, 0);
  r->fn(r->addrs());
  {
    const SeatAway away;
    joule_taskwait();  // its tasks end inside it (no task reduction reaches in)
  }
  seat_leave();
  s = saved;
}

void region_entry(void* block) {
  run_undeferred(region_task, block, "omp target",
                 "GOMP_target_ext (cannot create the region's task)");
}

void run_target(const TargetCall& c, bool nowait, void** depend) {
  std::size_t align = 0;
  const std::size_t size = block_size(c, &align);
  GOMP_task(region_entry, const_cast<TargetCall*>(&c), fill_block, long(size), long(align), nowait,
            depend ? kTaskDepend : 0, depend, 0, nullptr);
}

// The thread_limit clause among GCC's target arguments (null-terminated).
int thread_limit_of(void** args) {
  int limit = 0;
  for (; args && *args; ++args) {
    const auto word = reinterpret_cast<std::uintptr_t>(*args);
    auto value = std::intptr_t(word) >> kArgValueShift;
    if (word & kArgSubsequent) value = reinterpret_cast<std::intptr_t>(*++args);
    if ((word & kArgDeviceMask) == 0 && (word & kArgIdMask) == kArgThreadLimit)
      limit = value > 0 ? int(std::min<std::intptr_t>(value, 1 << 30)) : 0;
  }
  return limit;
}

}  // namespace
}  // namespace joule::omp

using namespace joule::omp;

extern "C" {

// Any device number runs on the host, as libgomp falls back to it.
JOULE_EXPORT void GOMP_target_ext(int device, void (*fn)(void*), std::size_t mapnum,
                                  void** hostaddrs, std::size_t* sizes, unsigned short* kinds,
                                  unsigned flags, void** depend, void** args) {
  check_offload("target (GOMP_target_ext)", device);
  run_target({fn, mapnum, hostaddrs, sizes, kinds, thread_limit_of(args)},
             (flags & kTargetNowait) != 0, depend);
}

// GCC before 5 (OpenMP 4.0): no firstprivate, no nowait, no arguments.
JOULE_EXPORT void GOMP_target(int device, void (*fn)(void*), const void* /*unused*/,
                              std::size_t mapnum, void** hostaddrs, std::size_t* sizes,
                              unsigned char* /*kinds*/) {
  check_offload("target (GOMP_target)", device);
  run_target({fn, mapnum, hostaddrs, sizes, nullptr, 0}, false, nullptr);
}

}  // extern "C"
