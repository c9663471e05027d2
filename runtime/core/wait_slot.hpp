// A thread's place to sleep: the futex word it waits on and whether it is
// asleep now. Every worker and every external thread that waits has one,
// owned by the engine's Idle and alive until the runtime stops, so a waker
// may hold a pointer to it after the thread moved on. A task records the
// slot of the thread running its body (Task::runner), so the child that
// completes last wakes exactly that thread.
#pragma once

#include <atomic>
#include <cstdint>

namespace joule::core {

struct WaitSlot {
  alignas(64) std::atomic<std::uint32_t> word{0};  // bumped by every wake
  std::atomic<bool> sleeping{false};
  // Bit in Idle's table of sleepers a push may wake (workers); -1: only
  // targeted wakes reach this slot (external threads).
  int index = -1;
  // External threads' counterpart of that bit: set while the thread sleeps
  // and no push has chosen it yet (Idle::wake_external claims it).
  std::atomic<bool> unclaimed{false};
  // A second sleeper a targeted wake of this slot also reaches: the thread
  // that gave this slot's CPU to a spare while it waits in a task (its
  // children and predecessors still wake this slot, the one they read when
  // it was running; Waits::wait_off_seat). Null otherwise.
  std::atomic<WaitSlot*> forward{nullptr};
};

}  // namespace joule::core
