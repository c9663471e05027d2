// What the state dump reads of the dependency domains: copies, made under
// each domain's lock, of the regions that still name an unfinished task and
// of those tasks' counters (docs/hang-dump.md, "Bounds" and "How
// consistent it is"). Bounded, so that a dump of a graph of a million tasks stays short
// and holds no domain long: the first few regions of the first few domains,
// the first few tasks of each access group, with counts of the rest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "task.hpp"

namespace joule::engine {

using namespace joule::core;

// A task as the dump saw it. `task` identifies it (to match it with the
// tasks the threads run); it is never read after the copy.
struct DepTaskView {
  const Task* task = nullptr;
  std::uint64_t id = 0;
  const char* label = nullptr;
  joule_task_fn_t fn = nullptr;
  bool finished = false;
  std::int32_t preds = 0;
  std::int64_t pending = 0;
  std::int64_t spawned = 0;
  std::int32_t events = 0;
  std::uint8_t blocking = 0;
};

struct DepGroupView {
  std::vector<DepTaskView> tasks;  // unfinished ones, in access order
  std::size_t more = 0;            // unfinished ones left out
};

// A run of adjacent bytes with the same two access groups: `before` (the
// group `now` follows) and `now` (the latest, of kind `kind`).
struct DepRegionView {
  std::uintptr_t start = 0;
  std::uintptr_t end = 0;
  DepKind kind = DepKind::none;
  DepKind before_kind = DepKind::none;
  DepGroupView before;
  DepGroupView now;
};

struct DepDomainView {
  DepTaskView owner;  // the task whose children these are
  std::vector<DepRegionView> regions;
  std::size_t more_regions = 0;  // listed regions left out
  bool cut = false;              // scanning stopped at DepViewLimits::scan fragments
};

struct DepViewLimits {
  std::size_t domains = 16;                 // domains listed
  std::size_t regions = 16;                 // regions per domain
  std::size_t tasks = 4;                    // tasks per access group
  std::size_t scan = std::size_t(1) << 16;  // fragments read per domain
  int tries = 2000;                         // try-locks (with a pause) before "busy"
};

struct DepViews {
  std::vector<DepDomainView> domains;  // those with a region left to show
  std::size_t more_domains = 0;        // such domains left out
  std::size_t busy = 0;                // domains being changed: not read
  std::size_t live = 0;                // domains alive in the process
};

DepViews view_dependencies(const DepViewLimits& limits);

// The copy of one task's counters (also for tasks the threads run).
DepTaskView view_task(const Task* t) noexcept;

// fork(): the child has only the forking thread; the registry's shard locks
// may be held by threads that are gone (runtime_fork.cpp).
void dep_registry_after_fork_in_child() noexcept;

}  // namespace joule::engine
