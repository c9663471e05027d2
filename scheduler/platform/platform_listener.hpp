// What a layer above the platform (scheduler/control: the energy
// controller) hooks into. The Platform measures; a listener decides. The
// Platform calls these at fixed points of its own hooks; a listener reads
// the platform through its public API (platform.hpp) and the per-worker
// slots (worker_slot.hpp), and keeps its own locking.
#pragma once

#include <cstdint>
#include <iosfwd>

namespace joule::core {
struct RunInfo;
}  // namespace joule::core

namespace joule::platform {

struct WorkerSlot;

class PlatformListener {
 public:
  virtual ~PlatformListener() = default;

  // Whether the per-task hooks (task_ended, and the slot's busy / work
  // accounting) are wanted; asked once, when the listener is attached.
  virtual bool live() const noexcept = 0;
  // Whether task starts should tell the slot's running_critical.
  virtual bool wants_critical() const noexcept = 0;

  // Platform::begin, after the start frequency, before residency is reset.
  virtual void begin(const core::RunInfo& run, std::uint64_t now) = 0;
  // On the worker's own thread, after the slot's busy / stretch / work
  // counters took the task: `key` is its affinity (JOULE_NO_AFFINITY:
  // none), `work_ns` its work in ns at fmax. Only when live().
  virtual void task_ended(WorkerSlot& s, std::uint64_t key, std::uint64_t work_ns,
                          std::uint64_t now) = 0;
  // On the worker's own thread, before a task runs (a task boundary, as
  // task_ended is). Only when live().
  virtual void task_starting(WorkerSlot& /*s*/) {}
  // An iteration boundary, after the platform's sample. Only when live().
  virtual void iteration(std::uint64_t iteration, std::uint64_t now) = 0;
  // A worker's thread enters / leaves a blocking MPI call.
  virtual void mpi_enter(int worker) = 0;
  virtual void mpi_leave(int worker) = 0;
  // Platform::end, after the final reading, before DVFS is restored.
  virtual void end(std::uint64_t now) = 0;
  // The listener's section at the end of the platform's report.
  virtual void report(std::ostream& os) const = 0;
};

}  // namespace joule::platform
