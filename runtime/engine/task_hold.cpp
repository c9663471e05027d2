// Completion held by an external event: an offloaded task's body returns as
// soon as the card has its work, and the task completes (successors released,
// parent told) only when the card reports back. The hold is one extra child
// in the task's own counters, so the completion path is the ordinary one
// and nothing on the hot path of host tasks changes.
#include "runtime.hpp"

namespace joule::engine {

using namespace joule::core;

bool Runtime::hold_completion(Task* t, std::int64_t n) noexcept {
  // Inline tasks (serial runtime, below a final task) are ordered by running
  // in creation order: their successors would not wait for the event.
  if (t->has(task_flag::final | task_flag::serial | task_flag::root)) return false;
  // Only the thread running t's body writes `spawned`, as for a real child.
  t->spawned.store(t->spawned.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  return true;
}

void Runtime::release_hold(Task* t, std::exception_ptr error, std::int64_t n) {
  if (error) record_exception(t, std::move(error), 0);
  ThreadContext& ctx = context();
  const std::int64_t left = t->pending.fetch_sub(n, std::memory_order_seq_cst) - n;
  if (left == 0) complete(t, ctx);  // the body had returned: complete here
}

void Runtime::end_serial_inline() noexcept {
  if (!serial_.exchange(false)) return;
  // The roots made so far: their flag is what new tasks inherit. Only the
  // one worker reads main_root_'s flags (serial: no other worker exists).
  main_root_->flags &= std::uint16_t(~task_flag::serial);
  std::lock_guard guard(external_mutex_);
  for (Task* root : external_roots_) root->flags &= std::uint16_t(~task_flag::serial);
}

}  // namespace joule::engine
