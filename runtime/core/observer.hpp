// Hooks around the runtime's events, for optional subsystems (tracing, the
// platform layer's DVFS emulation, meters and counters, reports). With no
// observer registered the runtime pays one predictable branch per event.
//
// Thread rules: task and worker hooks run on the thread they describe; start
// and stop hooks run on the thread that starts / stops the runtime, before
// the workers exist and after they have been joined.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <vector>

#include "clock.hpp"

namespace joule::core {

struct Task;
struct Config;
class AffinityMap;

// What observers learn of a run when it starts and stops.
struct RunInfo {
  std::vector<int> worker_cpus;  // the process's own workers, by worker index
  std::size_t observers = 0;     // how many observers this run has
  std::uint64_t start_ns = 0;    // now_ns() at start
  // What an energy policy reads and moves (the engine fills these; unset in
  // tools and tests that build a RunInfo by hand):
  std::function<int(int worker)> ready_of;  // ready tasks queued for a worker now
  AffinityMap* affinity = nullptr;          // key -> worker, honoured by the scheduler
  // Parks (true) or wakes (false) one of the process's own workers, at its
  // next task boundary; worker 0 (the user's thread) is never parked.
  std::function<void(int worker, bool park)> park_worker;
};

class Observer {
 public:
  virtual ~Observer() = default;
  virtual const char* name() const = 0;

  virtual void on_runtime_start(const RunInfo&) {}
  virtual void on_runtime_stop(const RunInfo&) {}
  virtual void on_worker_start(int /*worker*/, int /*cpu*/) {}
  virtual void on_worker_stop(int /*worker*/) {}
  virtual void on_task_submit(const Task&, int /*worker*/) {}
  virtual void on_task_start(const Task&, int /*worker*/, std::uint64_t /*now_ns*/) {}
  // After the body returned. An emulation that stretches tasks may keep the
  // worker busy here; it runs before successors are released.
  virtual void on_task_end(const Task&, int /*worker*/, std::uint64_t /*start_ns*/,
                           std::uint64_t /*end_ns*/) {}
  virtual void on_idle(int /*worker*/, bool /*sleeping*/, std::uint64_t /*now_ns*/) {}
  // The worker's CPU is lent, returned to its owner or retired (DROM): the
  // worker parks until it may run there again.
  virtual void on_parked(int /*worker*/, bool /*parked*/, std::uint64_t /*now_ns*/) {}
  virtual void on_iteration_boundary(std::uint64_t /*iteration*/, std::uint64_t /*now_ns*/) {}
  // True when this subsystem sets frequencies (DVFS): idle workers then
  // sleep after JOULE_SPIN_US instead of learning longer spins, because a
  // core spinning at full frequency through imbalance slack is the waste the
  // energy policies are there to remove (and what their model counts).
  virtual bool wants_idle_cores_asleep() const { return false; }
  // Adds this subsystem's section to the end-of-run report (JOULE_REPORT=1);
  // called after on_runtime_stop.
  virtual void report(std::ostream&) const {}
};

using ObserverFactory = std::unique_ptr<Observer> (*)(const Config&);
// Every registered factory in registration order; each returns nullptr
// when its config says off. api/ registers the built-in subsystems (the
// platform layer first, then tracing, which must see the platform's effects).
std::vector<std::unique_ptr<Observer>> make_observers(const Config& cfg);
// Adds a factory used by the next starts (api/, tools and tests); a factory
// added twice is added once. Not thread-safe against a concurrent start.
void register_observer_factory(ObserverFactory make);
void unregister_observer_factory(ObserverFactory make);

}  // namespace joule::core
