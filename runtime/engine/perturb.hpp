// Schedule perturbation: a check of the sleep/wake protocol (idle.hpp) that
// does not rely on luck. In the test variant of libjoule (CMake option
// JOULE_PERTURB: build/<preset>/perturb/libjoule.so, docs/internals-sleep-wake-checks.md)
// every synchronization point of the
// engine may yield its CPU or sleep a few microseconds, chosen by a seeded
// random stream (JOULE_PERTURB_SEED), so that the windows between publishing
// work and looking for sleepers, or between publishing a sleep and
// re-checking, are stretched again and again. In every other build
// JOULE_PERTURB_POINT expands to nothing: the hot path pays no instruction.
#pragma once

#include <cstdint>

namespace joule::engine {

// Where a point sits (counted per kind in the report at stop).
enum class SyncPoint : std::uint8_t {
  push,        // work published, wakes not yet looked for
  pop,         // a task taken from a queue
  steal,       // a task taken from another worker's queue
  sleep,       // a sleeper published itself, its condition not yet re-checked
  wake,        // a waker about to signal a sleeper
  taskwait,    // a waiting thread between its checks
  complete,    // a task about to settle its parent's count
  team_spawn,  // a team member queued on its worker, the wake not yet sent
  lending,     // a task boundary that may borrow CPUs
  count
};

namespace perturb {

// Whether this library was built with the points (JOULE_PERTURB).
bool built() noexcept;
// Sets the seed when the runtime starts (0: off). A seed in a library built
// without the points is refused loudly (a check that would check nothing).
void start(std::uint64_t seed);
// Prints the points passed and the delays taken (seed on) when it stops.
void stop() noexcept;
// One point: nothing when off; else maybe sched_yield or a short sleep.
void point(SyncPoint where) noexcept;

}  // namespace perturb
}  // namespace joule::engine

#if defined(JOULE_PERTURB)
#define JOULE_PERTURB_POINT(where) \
  ::joule::engine::perturb::point(::joule::engine::SyncPoint::where)
#else
#define JOULE_PERTURB_POINT(where) ((void)0)
#endif
