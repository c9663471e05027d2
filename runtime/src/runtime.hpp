// The runtime instance: configuration, topology, workers, the ready queue
// and the operations on tasks. One instance exists at a time; it starts
// implicitly at first use or explicitly (joule::runtime / joule_init).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "config.hpp"
#include "idle.hpp"
#include "observer.hpp"
#include "joule/joule.hpp"
#include "sync_scheduler.hpp"
#include "task.hpp"
#include "thread_context.hpp"
#include "topology.hpp"
#include "worker.hpp"

namespace joule::rt {

class Runtime {
 public:
  // The running instance, started with the environment's configuration if
  // there is none yet.
  static Runtime& get();
  static void start(const Settings& overrides);  // throws JOULE_ERR_STATE if running
  static void stop();                             // no-op if not running
  static bool running() noexcept;
  static std::uint64_t generation() noexcept;

  const Config& config() const noexcept { return config_; }
  int num_workers() const noexcept { return int(workers_.size()); }
  sched::SyncScheduler& scheduler() noexcept { return *scheduler_; }
  Idle& idle() noexcept { return idle_; }
  bool stopping() const noexcept { return stopping_.load(std::memory_order_relaxed); }
  Topology& topology() noexcept { return *topology_; }
  // The calling thread's context, set up on first use by an external thread.
  ThreadContext& context();
  const std::vector<std::unique_ptr<Observer>>& observers() const noexcept { return observers_; }
  bool observed() const noexcept { return observed_; }
  int worker_cpu(int worker) const noexcept { return workers_[std::size_t(worker)]->cpu(); }
  void iteration_boundary();
  std::uint64_t iterations() const noexcept { return iterations_.load(); }

  // ---- task operations (task_ops.cpp) ----
  Task* create(joule_task_fn_t fn, std::size_t args_size, std::size_t args_align,
               const task_options& opts);
  void add_dep(Task* t, int kind, const void* addr, std::size_t bytes);
  void submit(Task* t);
  void discard(Task* t);
  void execute(Task* t, ThreadContext& ctx);
  // Runs one ready task if there is one.
  bool run_one(ThreadContext& ctx);

  // ---- waiting (taskwait.cpp) ----
  void taskwait();
  void taskwait_on(const joule::dep* deps, std::size_t n);
  void taskloop(detail::loop_fn fn, void* arg, std::int64_t begin, std::int64_t end,
                std::int64_t grain, const task_options& opts);
  // Runs ready tasks (and sleeps when there are none) until done() holds.
  template <class Done>
  void help_until(ThreadContext& ctx, Done done, std::atomic<bool>* waiting_flag);

 private:
  explicit Runtime(Config cfg);
  ~Runtime();
  void launch();
  void shutdown();
  void attach_external(ThreadContext& ctx);
  void complete(Task* t, ThreadContext& ctx);
  void run_body(Task* t);
  void run_observed(Task* t, ThreadContext& ctx);
  void make_ready(Task** tasks, int n, ThreadContext& ctx);
  void record_exception(Task* parent, std::exception_ptr e, std::uint32_t suppressed);
  void throttle(ThreadContext& ctx);
  std::int64_t in_flight() const noexcept;
  void count_created(ThreadContext& ctx) noexcept;
  void count_completed(ThreadContext& ctx) noexcept;
  void wait_ready_and_run(Task* t, ThreadContext& ctx);
  void report_lost_exception(Task* root);
  void print_report() const;

  Config config_;
  std::unique_ptr<Topology> topology_;
  std::unique_ptr<sched::SyncScheduler> scheduler_;
  std::vector<std::unique_ptr<Worker>> workers_;
  Idle idle_;
  std::vector<std::unique_ptr<Observer>> observers_;
  bool observed_ = false;
  std::uint64_t start_ns_ = 0;
  std::atomic<std::uint64_t> iterations_{0};
  std::atomic<std::uint64_t> next_thread_slot_{1};
  std::atomic<bool> stopping_{false};
  Task* main_root_ = nullptr;

  // External (non-worker) threads: their roots and pools live until stop.
  std::mutex external_mutex_;
  std::vector<Task*> external_roots_;
  std::vector<std::unique_ptr<TaskPool>> external_pools_;
  alignas(64) std::atomic<std::uint64_t> external_created_{0};
  alignas(64) std::atomic<std::uint64_t> external_completed_{0};
};

}  // namespace joule::rt

#include "help_until.hpp"
