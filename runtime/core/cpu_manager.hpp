// How the runtime obtains and gives back CPUs. The default manager keeps the
// process's CPUs for good. The LeWI manager (runtime/lending) shares them
// with other processes of the node through a shared CPU table, following
// DLB's verbs: lend, reclaim, borrow, return.
//
// The runtime calls these at task boundaries only, from the worker that owns
// the CPU in question (or from the thread that found ready tasks waiting);
// implementations must be thread-safe but never block for long.
#pragma once

#include <memory>
#include <vector>

namespace joule::core {

struct Config;

class CpuManager {
 public:
  virtual ~CpuManager() = default;
  virtual const char* name() const = 0;
  // Whether this manager lends and borrows CPUs (else the process keeps its own).
  virtual bool lends() const { return false; }

  // Before the workers start: the CPUs this process owns (its mask).
  virtual void start(const std::vector<int>& /*owned_cpus*/) {}
  // After every worker has stopped: give everything back, leave the table.
  virtual void stop() {}
  // The process exits from inside a task, with workers still running: give
  // back borrowed CPUs now; the rest (registration, own CPUs) is cleaned by
  // the other processes as for a process that died.
  virtual void abandon() {}
  // After start: the machine's CPUs by nearness to the owned ones, nearest
  // level first (same core, shared cache, NUMA node, package, other); the
  // manager borrows from the nearest level first. The caller knows the
  // topology, the manager does not.
  virtual void set_nearness(const std::vector<std::vector<int>>& /*levels*/) {}

  // The worker on `cpu` found nothing to run. true: the CPU has been lent
  // (owned) or returned (borrowed) and the worker must park until woken.
  virtual bool release_idle(int /*cpu*/) { return false; }
  // Before a task on `cpu`: true if the CPU is borrowed and its owner has
  // claimed it; the CPU has then been returned and the worker must park.
  virtual bool must_return(int /*cpu*/) { return false; }
  // The process has more ready tasks than running workers: get up to `n`
  // more CPUs (reclaim own lent CPUs first, then borrow idle ones). Appends
  // the CPUs obtained to `got`; the runtime runs a worker on each.
  virtual void acquire(int /*n*/, std::vector<int>& /*got*/) {}

  // A blocking call (MPI) begins / ends on the calling thread's CPU: lend
  // all CPUs except `keep` of them, and reclaim them after.
  virtual void enter_blocking(int /*keep*/) {}
  virtual void leave_blocking() {}

  // DROM: true (and the new mask in `mask`) if another process or joule-ctl
  // changed this process's CPU mask since the last call.
  virtual bool poll_mask(std::vector<int>& /*mask*/) { return false; }

  // A parked worker's view: may this process run on `cpu` now (it owns it
  // and has not lent it, or it has borrowed it)?
  virtual bool usable(int /*cpu*/) { return true; }
  // Blocks until usable(cpu) may have changed, or the timeout passes.
  // Implementations wake waiters on every transition of `cpu`.
  virtual void wait_for_change(int /*cpu*/, unsigned /*timeout_us*/) {}
  // Wakes whoever waits on `cpu` in this process (used at stop).
  virtual void wake(int /*cpu*/) {}
};

// A lending layer's factory: nullptr when its config says off.
using CpuManagerFactory = std::unique_ptr<CpuManager> (*)(const Config&);
// api/ installs the LeWI manager of runtime/lending here.
void set_lending_factory(CpuManagerFactory make) noexcept;
// JOULE_LENDING=off (or no lending layer) gives the default manager, which
// keeps the process's CPUs; local / node give the lending layer's.
std::unique_ptr<CpuManager> make_cpu_manager(const Config& cfg);

}  // namespace joule::core
