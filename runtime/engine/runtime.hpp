// The runtime instance: configuration, topology, workers, the ready queue
// and the operations on tasks. One instance exists at a time; it starts
// implicitly at first use or explicitly (joule::runtime / joule_init).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <ostream>
#include <vector>

#include "affinity_map.hpp"
#include "config.hpp"
#include "cpu_budget.hpp"
#include "cpu_manager.hpp"
#include "engine_settings.hpp"
#include "idle.hpp"
#include "joule/types.hpp"
#include "node_map.hpp"
#include "numa_memory.hpp"
#include "observer.hpp"
#include "polling_services.hpp"
#include "queue_settings.hpp"
#include "sync_scheduler.hpp"
#include "task.hpp"
#include "thread_context.hpp"
#include "topology.hpp"
#include "worker.hpp"

namespace joule::engine {

using namespace joule::core;

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

  const Config& config() const noexcept { return config_; }
  // The engine's and the queues' settings, copied out of the configuration
  // at start so that the hot paths read plain members.
  const EngineSettings& settings() const noexcept { return settings_; }
  // Workers on the process's own CPUs (guests on borrowed CPUs come after).
  int num_workers() const noexcept { return owned_workers_; }
  // All workers so far, guests included; worker(i) for i < worker_count().
  int worker_count() const noexcept { return worker_count_.load(std::memory_order_acquire); }
  Worker* worker(int i) const noexcept {
    return slots_[std::size_t(i)].load(std::memory_order_acquire);
  }
  queues::SyncScheduler& scheduler() noexcept { return *scheduler_; }
  Idle& idle() noexcept { return *idle_; }
  bool stopping() const noexcept { return stopping_.load(std::memory_order_relaxed); }
  Topology& topology() noexcept { return *topology_; }
  // The calling thread's context, set up on first use by an external thread.
  ThreadContext& context();
  // The calling thread's root task, made now for a worker (which has none):
  // the parent of tasks independent of whatever the thread runs (ALPI spawn).
  Task* spawn_root(ThreadContext& ctx);
  const std::vector<std::unique_ptr<Observer>>& observers() const noexcept { return observers_; }
  bool observed() const noexcept { return observed_; }
  // The longest idle spin a worker may learn (0: JOULE_SPIN_US, fixed).
  int spin_cap_us() const noexcept { return spin_cap_us_; }
  int worker_cpu(int i) const noexcept { return worker(i)->cpu(); }
  // More workers than CPUs they can run on at once (the mask, the cgroup
  // CPU quota), or JOULE_OVERSUBSCRIBED=yes: a waiter should yield its CPU
  // early rather than spin (core::Backoff(0)). Decided at start.
  bool oversubscribed() const noexcept { return oversubscribed_; }
  // The numbers behind it: CPUs in the mask, the quota and its file, why
  // the workers are as many as they are (cpu_budget.hpp).
  const CpuBudget& cpu_budget() const noexcept { return cpu_budget_; }

  // ---- CPU lending (runtime_lending.cpp) ----
  CpuManager& cpu_manager() noexcept { return *cpu_manager_; }
  bool lending() const noexcept { return lending_; }
  void note_parked(int delta) noexcept { parked_.fetch_add(delta, std::memory_order_relaxed); }
  // After ready tasks were pushed: reclaim or borrow CPUs if they outnumber
  // the workers that could run them.
  void maybe_acquire();
  // The OpenMP layer at a parallel region's start: up to `want` workers that
  // can run at once, reclaiming own lent CPUs and borrowing idle ones (new
  // guests) when fewer are usable now. Returns how many it may count on.
  int reserve_workers(int want);
  // DROM: applies a changed process mask (rate-limited; any worker may call).
  void poll_drom();
  void iteration_boundary();
  std::uint64_t iterations() const noexcept { return iterations_.load(); }

  // ---- task operations (task_ops.cpp) ----
  Task* create(joule_task_fn_t fn, std::size_t args_size, std::size_t args_align,
               const task_options& opts);
  // op: a reduction's operator (kind reduction only; null: commutative).
  void add_dep(Task* t, int kind, const void* addr, std::size_t bytes,
               const joule_reduction_op_t* op = nullptr);
  void prefetch_dep(const Task* t, const void* addr) const noexcept;
  // A task's dependencies at once: their index lookups overlap.
  template <class Dep>
  void add_deps(Task* t, const Dep* deps, std::size_t n) {
    if (n > 1)
      for (std::size_t i = 0; i < n; ++i) prefetch_dep(t, deps[i].addr);
    for (std::size_t i = 0; i < n; ++i)
      add_dep(t, static_cast<int>(deps[i].kind), deps[i].addr, deps[i].bytes, deps[i].reduction);
  }
  void submit(Task* t);
  // Team members (libjoule-omp): each on another worker's queue (task_ops.cpp).
  void submit_spread(Task* const* tasks, int n);
  void discard(Task* t);
  void execute(Task* t, ThreadContext& ctx);
  // ---- completion held by an external event (task_hold.cpp) ----
  // From t's body: t completes only after release_hold. False (nothing held)
  // for tasks that run inline, whose caller must wait for the event itself.
  // n holds at once (the ALPI's event counters).
  bool hold_completion(Task* t, std::int64_t n = 1) noexcept;
  // From any thread, once per successful hold (n of them at once); `error`
  // is rethrown at the parent's taskwait.
  void release_hold(Task* t, std::exception_ptr error, std::int64_t n = 1);
  // Tasks created from now on are deferred even with one worker (the
  // serial inline mode ends): blocking and event counters need a task that
  // waits to let others run. Tasks already running inline stay inline.
  void end_serial_inline() noexcept;
  bool serial_inline() const noexcept { return serial_.load(std::memory_order_relaxed); }
  // ---- polling services (polling_services.hpp; run by idle threads) ----
  PollingServices& polling() noexcept { return polling_; }
  // Runs the services if any is registered (a relaxed load otherwise).
  void poll_services() {
    if (polling_.active()) polling_.poll();
  }
  // An idle thread's longest sleep: short while services must keep running.
  long idle_sleep_cap(long limit_ns) const noexcept {
    return polling_.active() ? PollingServices::kPollSleepNs : limit_ns;
  }
  // Runs one ready task if there is one.
  bool run_one(ThreadContext& ctx);
  // Returns the thread's privately held ready tasks to the queue.
  void flush_private(ThreadContext& ctx);
  // Subtracts the children this thread finished but has not yet counted
  // (hold_child) from their parent: before it idles, waits or parks.
  void flush_held(ThreadContext& ctx);
  // The thread stops looking for work (Idle); found: it is about to run a
  // task, so the next sleeper may take over the looking.
  void end_search(ThreadContext& ctx, bool found) noexcept;
  // Deep in nested taskwaits: runs only descendants of `waiter`, setting
  // other ready tasks aside in `deferred` (so the stack stays bounded).
  bool run_one_within(ThreadContext& ctx, Task* waiter, std::vector<Task*>& deferred);
  // Puts back what run_one_within deferred, waking sleepers for it.
  void return_deferred(std::vector<Task*>& deferred);

  // ---- NUMA placement (numa_ops.cpp) ----
  const NodeMap& nodes() const noexcept { return nodes_; }
  // The worker a keyed task of `key` goes to (the energy policy's plan,
  // else AffinityMap::spread over the owned workers).
  int worker_of_key(std::uint64_t key) const noexcept;
  // Memory placed as `req` says (joule_alloc). Throws joule::error.
  void* place(std::size_t bytes, const PlaceRequest& req);

  // ---- waiting (taskwait.cpp) ----
  void taskwait();
  void taskwait_on(const joule::dep* deps, std::size_t n);
  void taskloop(detail::loop_fn fn, void* arg, std::int64_t begin, std::int64_t end,
                std::int64_t grain, const task_options& opts);
  // Runs ready tasks (and sleeps when there are none) until done() holds.
  // `waiter`: the task whose children a taskwait waits for (bounds helping
  // depth); `watched`: a task whose body this thread runs and whose last
  // child should wake it (both null when neither applies). `poll_ns`: a
  // time limit for each sleep, for a condition nobody wakes this thread for
  // (0: none; lending polls anyway).
  template <class Done>
  void help_until(ThreadContext& ctx, Done done, Task* waiter, Task* watched = nullptr,
                  long poll_ns = 0);
  template <class Done>
  void sleep_while_waiting(ThreadContext& ctx, Done& done, Task* watched, long poll_ns);

 private:
  explicit Runtime(Config cfg);
  ~Runtime();
  void launch();
  void shutdown();
  void abandon() noexcept;
  void attach_external(ThreadContext& ctx);
  void complete(Task* t, ThreadContext& ctx);
  Task* finish(Task* t, ThreadContext& ctx);
  Task* settle_children(Task* parent, std::int64_t n) noexcept;
  bool hold_child(Task* parent, ThreadContext& ctx);
  void run_body(Task* t);
  void run_body_here(Task* t) noexcept;
  void run_observed(Task* t, ThreadContext& ctx);
  // released: the tasks' last predecessor just finished here, so the
  // first may run next on this thread (immediate successor).
  void make_ready(Task** tasks, int n, ThreadContext& ctx, bool released);
  // t's data is in another worker's cache, and the policy follows data:
  // t is queued there instead of running next here.
  bool elsewhere(const Task* t, const ThreadContext& ctx) const noexcept;
  // After publishing ready tasks: a pinned task (iterative energy mode)
  // wakes its owner; any other wakes one sleeping worker, nearest first.
  void note_submitted(Task* t, ThreadContext& ctx);
  void push_and_wake(Task* const* tasks, int n, int pusher);
  void push_pinned_and_wake(Task* const* tasks, int n, int pusher);
  void record_exception(Task* parent, std::exception_ptr e, std::uint32_t suppressed);
  void release_successors(Task* t, ThreadContext& ctx);
  void throttle(ThreadContext& ctx);
  void wait_for_room(ThreadContext& ctx, std::int64_t target);
  std::uint64_t completed_total() const noexcept;

 public:
  // Tasks created and not finished, summed over every worker's counters.
  std::int64_t in_flight() const noexcept;

 private:
  void count_created(ThreadContext& ctx) noexcept;
  void count_completed(ThreadContext& ctx) noexcept;
  void wait_ready_and_run(Task* t, ThreadContext& ctx);
  void report_lost_exception(Task* root);
  void print_report() const;
  void report_scheduler(std::ostream& os) const;
  void report_numa(std::ostream& os) const;
  // Data-node preference (numa_ops.cpp): at t's first dependency, a worker
  // of the node its data was placed on; when t becomes ready (at submit, or
  // released) on another node, routed_to_node queues it on that worker and
  // says so.
  void prefer_data_node(Task* t, const void* addr) noexcept;
  bool routed_to_node(Task* t, ThreadContext& ctx);
  void touch_chunks(char* p, std::size_t bytes, const PlaceRequest& req);
  void submit_pinned(Task* t, int worker, ThreadContext& ctx);
  RunInfo run_info();

  Worker& add_worker(int cpu);  // caller holds workers_mutex_
  void set_victims(int index);  // the worker's steal order (topology levels)
  void activate_cpu(int cpu);
  void apply_mask(const std::vector<int>& mask);
  void park_worker(int index, bool park);  // energy masks: retire / bring back a worker

  Config config_;
  EngineSettings settings_;
  queues::QueueSettings queue_settings_;
  std::unique_ptr<Topology> topology_;
  std::unique_ptr<queues::SyncScheduler> scheduler_;
  std::unique_ptr<CpuManager> cpu_manager_;
  bool lending_ = false;
  // One worker, no lending: tasks run inline (serial_inline); cleared by
  // end_serial_inline from any thread.
  std::atomic<bool> serial_{false};
  bool follows_data_ = false;  // the policy queues tasks where their data is (locality)
  bool oversubscribed_ = false;
  CpuBudget cpu_budget_;
  int owned_workers_ = 0;
  int max_workers_ = 0;
  // Workers never move or go away while the runtime runs; slots_ lets any
  // thread read them while guests are being added under workers_mutex_.
  std::mutex workers_mutex_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::unique_ptr<std::atomic<Worker*>[]> slots_;
  std::atomic<int> worker_count_{0};
  std::vector<int> worker_of_cpu_;  // cpu -> worker index or -1 (workers_mutex_)
  std::atomic<int> parked_{0};
  std::atomic<std::uint64_t> last_acquire_ns_{0};
  std::atomic<std::uint64_t> last_drom_ns_{0};
  std::unique_ptr<Idle> idle_;
  std::vector<std::unique_ptr<Observer>> observers_;
  bool observed_ = false;
  int spin_cap_us_ = 0;
  std::uint64_t start_ns_ = 0;
  std::atomic<std::uint64_t> iterations_{0};
  NodeMap nodes_;         // workers by NUMA node (node_map.hpp)
  AffinityMap affinity_;  // written by the energy controller (RunInfo::affinity)
  std::atomic<std::uint64_t> next_thread_slot_{1};
  std::atomic<bool> stopping_{false};
  Task* main_root_ = nullptr;
  PollingServices polling_;

  // External (non-worker) threads: their roots and pools live until stop.
  std::mutex external_mutex_;
  std::vector<Task*> external_roots_;
  std::vector<std::unique_ptr<TaskPool>> external_pools_;
  alignas(64) std::atomic<std::uint64_t> external_created_{0};
  alignas(64) std::atomic<std::uint64_t> external_completed_{0};
};

// CPUs of the machine by nearness to `owned`, one level per StealDistance,
// nearest first (runtime_lending.cpp); the CPU manager borrows in that order.
std::vector<std::vector<int>> nearness_levels(const Topology& topo, const std::vector<int>& owned);

}  // namespace joule::engine

#include "help_until.hpp"
