// The runtime instance: its life cycle (start, stop, the process's exit),
// the parts every room shares (configuration, topology, the ready queues,
// Idle, observers, polling services) and the threads' contexts. The work
// itself is done in rooms the Runtime owns, one class each:
//
//   tasks()     TaskLifecycle  create, dependencies, submit, run, complete
//   waits()     Waits          taskwait, taskwait_on, taskloop, helping waits
//   blocking()  Blocking       blocked tasks, external events, polling services
//   workers()   Workforce      the workers and their steal orders
//   numa()      NumaPlacement  placed memory, tasks queued by their data's node
//   lending()   LendingBridge  CPUs lent, borrowed, reclaimed; DROM masks
//
// One instance exists at a time; it starts implicitly at first use or
// explicitly (joule::runtime / joule_init). docs/internals.md, "Engine
// rooms", draws how a task goes through them.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <ostream>
#include <vector>

#include "affinity_map.hpp"
#include "blocking.hpp"
#include "config.hpp"
#include "cpu_budget.hpp"
#include "dump_listener.hpp"
#include "engine_settings.hpp"
#include "idle.hpp"
#include "joule/types.hpp"
#include "lending_bridge.hpp"
#include "numa_placement.hpp"
#include "observer.hpp"
#include "polling_services.hpp"
#include "queue_settings.hpp"
#include "ready_queues.hpp"
#include "task.hpp"
#include "task_lifecycle.hpp"
#include "thread_context.hpp"
#include "topology.hpp"
#include "waits.hpp"
#include "workforce.hpp"

namespace joule::engine {

using namespace joule::core;

// 34 public functions: the 8 static ones are the process-wide life cycle,
// the rest read the shared parts or hand out a room; the work is in the rooms.
class Runtime {
 public:
  // The running instance, started with the environment's configuration if
  // there is none yet.
  static Runtime& get();
  [[gnu::noinline]] static Runtime& start_implicitly();
  static void start(const Settings& overrides);  // throws JOULE_ERR_STATE if running
  // Waits for every task and stops the workers; no-op if not running.
  // Throws JOULE_ERR_STATE when called from inside a task: it would wait
  // for that task, which waits for it.
  static void stop();
  // The process exits (atexit, joule's card): stop(), except when exit()
  // was called from inside a task. That task never finishes, so the runtime
  // is given up instead (abandon): false then, and stop() is a no-op after.
  static bool stop_at_exit();
  // The calling thread is running a task's body now (any worker, or a
  // thread running an undeferred or inline task).
  static bool in_task() noexcept;
  static bool running() noexcept;
  static std::uint64_t generation() noexcept;

  // ---- the rooms ----
  TaskLifecycle& tasks() noexcept { return tasks_; }
  Waits& waits() noexcept { return waits_; }
  Blocking& blocking() noexcept { return blocking_; }
  Workforce& workers() noexcept { return workers_; }
  const Workforce& workers() const noexcept { return workers_; }
  NumaPlacement& numa() noexcept { return numa_; }
  LendingBridge& lending() noexcept { return *lending_; }

  // ---- the shared parts ----
  const Config& config() const noexcept { return config_; }
  // The engine's and the queues' settings, copied out of the configuration
  // at start so that the hot paths read plain members.
  const EngineSettings& settings() const noexcept { return settings_; }
  const queues::QueueSettings& queue_settings() const noexcept { return queue_settings_; }
  queues::ReadyQueues& scheduler() noexcept { return *scheduler_; }
  Idle& idle() noexcept { return *idle_; }
  Topology& topology() noexcept { return *topology_; }
  PollingServices& polling() noexcept { return polling_; }
  // Written by the energy controller (RunInfo::affinity), read by placement.
  const AffinityMap& affinity() const noexcept { return affinity_; }
  const std::vector<std::unique_ptr<Observer>>& observers() const noexcept { return observers_; }
  bool observed() const noexcept { return observed_; }
  bool stopping() const noexcept { return stopping_.load(std::memory_order_relaxed); }
  // The longest idle spin a worker may learn (0: JOULE_SPIN_US, fixed).
  int spin_cap_us() const noexcept { return spin_cap_us_; }
  // More workers than CPUs they can run on at once (the mask, the cgroup
  // CPU quota), or JOULE_OVERSUBSCRIBED=yes: a waiter should yield its CPU
  // early rather than spin (core::Backoff(0)). Decided at start.
  bool oversubscribed() const noexcept { return oversubscribed_; }
  // The numbers behind it: CPUs in the mask, the quota and its file, why
  // the workers are as many as they are (cpu_budget.hpp).
  const CpuBudget& cpu_budget() const noexcept { return cpu_budget_; }

  // ---- threads ----
  // The calling thread's context, set up on first use by an external thread.
  ThreadContext& context() {
    ThreadContext& ctx = contexts::t_context;
    if (ctx.generation != contexts::g_generation.load(std::memory_order_relaxed)) [[unlikely]]
      attach_external(ctx);
    return ctx;
  }
  // The parent of the tasks the calling thread spawns independent of
  // whatever it runs (ALPI spawn): a root of its own, made at first use,
  // that no taskwait of the thread waits for.
  Task* spawn_root(ThreadContext& ctx);
  // Clears the serial flag of every root made so far (end of the serial
  // inline mode): new tasks inherit it from their root.
  void clear_serial_roots() noexcept;

  void iteration_boundary();
  std::uint64_t iterations() const noexcept { return iterations_.load(); }

 private:
  explicit Runtime(Config cfg);
  ~Runtime();
  void make_workers(const std::vector<int>& cpus, const std::vector<int>& slot_nodes);
  void launch();
  void shutdown();
  void abandon() noexcept;
  void attach_external(ThreadContext& ctx);
  void report_lost_exception(Task* root);
  void print_report() const;
  void report_queues(std::ostream& os) const;
  RunInfo run_info();

  Config config_;
  EngineSettings settings_;
  queues::QueueSettings queue_settings_;
  std::unique_ptr<Topology> topology_;
  std::unique_ptr<queues::ReadyQueues> scheduler_;
  bool oversubscribed_ = false;
  CpuBudget cpu_budget_;
  std::unique_ptr<Idle> idle_;
  std::vector<std::unique_ptr<Observer>> observers_;
  bool observed_ = false;
  int spin_cap_us_ = 0;
  std::uint64_t start_ns_ = 0;
  std::atomic<std::uint64_t> iterations_{0};
  AffinityMap affinity_;  // written by the energy controller (RunInfo::affinity)
  std::atomic<std::uint64_t> next_thread_slot_{1};
  std::atomic<bool> stopping_{false};
  Task* main_root_ = nullptr;
  PollingServices polling_;

  // External (non-worker) threads: their roots and pools live until stop.
  std::mutex external_mutex_;
  std::vector<Task*> external_roots_;
  std::vector<std::unique_ptr<TaskPool>> external_pools_;

  // The rooms (after the parts they read).
  Workforce workers_{*this};
  TaskLifecycle tasks_{*this};
  Waits waits_{*this};
  Blocking blocking_{*this};
  NumaPlacement numa_{*this};
  std::unique_ptr<LendingBridge> lending_;
  std::unique_ptr<DumpListener> dump_;  // after the rooms: it reads them
};

}  // namespace joule::engine

#include "help_until.hpp"
