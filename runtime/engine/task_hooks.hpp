// An extension point on the task path for layers above the engine, as
// observers are for events: the offload layers must see every dependency a
// host task names (its data may be newest on a device) and act on the
// thread that runs the body, before it (copy that data back). The engine
// calls the hook; the hook never changes a task's body or arguments, and
// keeps whatever it needs per task itself. One hook at most, set when the
// library loads (api/src/wiring.cpp), before any task exists.
#pragma once

#include <cstddef>

#include "task.hpp"

namespace joule::engine {

struct TaskHook {
  // Cheap and lock-free: false while the hook cannot want any task (no
  // device holds data), so a dependency costs one call and a load.
  bool (*engaged)() noexcept;
  // t, being built on this thread, names [addr, addr + bytes) with `kind`
  // (JOULE_DEP_*). To run before t's body the hook calls take(t).
  void (*on_dependency)(core::Task& t, int kind, const void* addr, std::size_t bytes);
  // On the thread about to run t's body, inside the body's error handling:
  // an exception fails t. Called once, for a taken task.
  void (*before_body)(core::Task& t);
  // A taken task is discarded (never runs): the hook forgets it.
  void (*on_discard)(core::Task& t) noexcept;

  static void take(core::Task& t) noexcept { t.flags |= core::task_flag::hooked; }
};

// Sets the hook (null: none). Not thread-safe: called at load time.
void set_task_hook(const TaskHook* hook) noexcept;
const TaskHook* task_hook() noexcept;

}  // namespace joule::engine
