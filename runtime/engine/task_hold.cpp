// Completion held by an external event: an offloaded task's body returns as
// soon as the card has its work, and the task completes (successors released,
// parent told) only when the card reports back. The hold is one extra child
// in the task's own counters, so the completion path is the ordinary one
// and nothing on the hot path of host tasks changes.
#include "runtime.hpp"

namespace joule::engine {

using namespace joule::core;

bool Runtime::hold_completion(Task* t) noexcept {
  // Inline tasks (serial runtime, below a final task) are ordered by running
  // in creation order: their successors would not wait for the event.
  if (t->has(task_flag::final | task_flag::serial | task_flag::root)) return false;
  // Only the thread running t's body writes `spawned`, as for a real child.
  t->spawned.store(t->spawned.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  return true;
}

void Runtime::release_hold(Task* t, std::exception_ptr error) {
  if (error) record_exception(t, std::move(error), 0);
  ThreadContext& ctx = context();
  const std::int64_t left = t->pending.fetch_sub(1, std::memory_order_seq_cst) - 1;
  if (left == 0) complete(t, ctx);  // the body had returned: complete here
}

}  // namespace joule::engine
