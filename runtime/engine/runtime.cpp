// Runtime life cycle: start (configuration, topology, workers), thread
// contexts, and stop (wait for every task, join, restore the main thread).
#include "runtime.hpp"
#include "overflow_guard.hpp"
#include "perturb.hpp"
#include "stack_segments.hpp"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <new>
#include <sstream>

#include "dep_domain.hpp"
#include "dep_domain_view.hpp"
#include "log.hpp"
#include "numa_memory.hpp"
#include "policy_registry.hpp"
#include "task_pool.hpp"

namespace joule::engine {

using namespace joule::core;

// thread_context.hpp says why initial-exec and constinit.
[[gnu::tls_model("initial-exec")]] constinit thread_local ThreadContext contexts::t_context;
std::atomic<std::uint64_t> contexts::g_generation{0};
using contexts::g_generation;

namespace {

std::mutex g_lifecycle;
std::atomic<Runtime*> g_instance{nullptr};
// exit() was called from inside a task: the runtime was given up (abandon).
std::atomic<bool> g_abandoned{false};

// on_exit, not atexit: ending the process needs exit()'s status when it
// was called inside a task and the runtime was given up. The workers still
// run then, and the handlers registered before this one (static
// destructors, libnuma's among the libraries') would free what they use:
// the process ends here instead, with stdio flushed.
void stop_at_exit(int status, void*) {
  if (Runtime::stop_at_exit()) return;
  std::fflush(nullptr);
  std::_Exit(status);
}

// fork(): the child has one thread, the one that called fork. The workers,
// the spares, the polling ticker and the dump listener stay in the parent,
// and a lock any of them held stays held in the child. So the child gives
// the parent's runtime up without touching it (its memory is left as it
// is): exit() in the child does not wait for the parent's tasks, and the
// child's first joule call starts a runtime of its own. What the child may
// do is in docs/hang-dump.md, "fork()". Only stores here: the
// child of a multithreaded process may call async-signal-safe functions
// only until it execs (system(), popen()).
void forget_runtime_in_child() {
  g_instance.store(nullptr, std::memory_order_relaxed);
  g_generation.fetch_add(1, std::memory_order_relaxed);  // every context is stale
  ::new (&g_lifecycle) std::mutex();                     // a parent's thread may have held it
  dep_registry_after_fork_in_child();
}

// Whichever way the runtime starts, exit stops it (joule.h promises it);
// called with g_lifecycle held.
void register_stop_at_exit() {
  static bool registered = false;
  if (!registered) {
    ::on_exit(stop_at_exit, nullptr);
    ::pthread_atfork(nullptr, nullptr, forget_runtime_in_child);
    registered = true;
  }
}

// serial: the runtime runs tasks inline (EngineSettings::serial_inline);
// the flag passes to every task below the root.
Task* make_root(bool serial) {
  Task* root = TaskPool::make_task(nullptr, 0, 16);
  root->flags = task_flag::root | (serial ? task_flag::serial : 0);
  root->preds.store(0, std::memory_order_relaxed);  // never scheduled
  return root;
}

std::unique_ptr<Topology> load_topology(const std::string& synthetic) {
  if (synthetic.empty()) return std::make_unique<Topology>();
  try {
    return std::make_unique<Topology>(synthetic.c_str());
  } catch (const std::runtime_error&) {
    throw joule::error(JOULE_ERR_CONFIG,
                       "joule: configuration error: JOULE_WORKER_TOPOLOGY=" + synthetic +
                           ": not an hwloc synthetic description (e.g. "
                           "\"pack:2 numa:2 core:8 pu:2\")");
  }
}

// NumaMemory's worker-state blocks, for what a lower layer allocates per
// worker (the ready queues' shard headers): recorded and reported per node.
queues::ShardMemory worker_state_memory() {
  return {[](std::size_t bytes, int node) {
            NumaMemory& mem = NumaMemory::instance();
            return node >= 0 ? mem.allocate_on(bytes, node, MemoryUse::worker_state)
                             : mem.allocate_unplaced(bytes, MemoryUse::worker_state);
          },
          [](void* block) { NumaMemory::instance().release(block); }};
}

}  // namespace

int os_thread_id() noexcept { return int(::syscall(SYS_gettid)); }

std::uint64_t Runtime::generation() noexcept { return g_generation.load(); }
bool Runtime::running() noexcept { return g_instance.load() != nullptr; }

Runtime& Runtime::get() {
  if (Runtime* rt = g_instance.load(std::memory_order_acquire)) [[likely]]
    return *rt;
  return start_implicitly();
}

// Out of line: the hot path of get() stays a load and a branch.
Runtime& Runtime::start_implicitly() {
  std::lock_guard guard(g_lifecycle);
  if (Runtime* rt = g_instance.load(std::memory_order_acquire)) return *rt;
  register_stop_at_exit();
  auto* rt = new Runtime(Config::load({}));
  rt->launch();
  g_instance.store(rt, std::memory_order_release);
  return *rt;
}

void Runtime::start(const Settings& overrides) {
  std::lock_guard guard(g_lifecycle);
  if (g_instance.load())
    throw joule::error(JOULE_ERR_STATE, "joule: the runtime is already running");
  register_stop_at_exit();
  auto* rt = new Runtime(Config::load(overrides));
  rt->launch();
  g_instance.store(rt, std::memory_order_release);
}

void Runtime::stop() {
  if (g_abandoned.load()) return;  // the process is exiting from inside a task
  if (in_task())
    throw joule::error(JOULE_ERR_STATE,
                       "joule: the runtime cannot stop from inside a task (it would wait for "
                       "that task); stop it outside every task, or let exit stop it");
  std::lock_guard guard(g_lifecycle);
  Runtime* rt = g_instance.load();
  if (!rt) return;
  rt->shutdown();
  g_instance.store(nullptr);
  delete rt;
}

bool Runtime::stop_at_exit() {
  if (g_abandoned.load()) return false;
  if (!in_task()) {
    stop();
    return true;
  }
  // No lock: the thread that holds it may be waiting in stop() for this
  // very task. Nothing else can finish stopping while the task runs.
  if (Runtime* rt = g_instance.load(); rt && !g_abandoned.exchange(true)) rt->abandon();
  return false;
}

bool Runtime::in_task() noexcept {
  const ThreadContext& ctx = contexts::t_context;
  return g_instance.load(std::memory_order_acquire) &&
         ctx.generation == g_generation.load(std::memory_order_relaxed) && ctx.current &&
         ctx.current != ctx.root;
}

// exit() from inside a task: waiting for every task would wait for the one
// calling exit, forever. The workers are left as they are (asleep, or
// running their task until the process ends); only what outlives the
// process is put back: CPUs borrowed from other processes. Frequencies go
// back through the platform's own exit guard. The trace and the report are
// not written: the workers still write to what they would read.
void Runtime::abandon() noexcept {
  try {
    lending_->cpu_manager().abandon();
  } catch (...) {
  }
  if (config_.report)
    std::fputs("== joule report ==\n(not written: exit() was called inside a task)\n", stderr);
}

Runtime::Runtime(Config cfg)
    : config_(std::move(cfg)),
      settings_(config_.get<EngineSettings>()),
      queue_settings_(config_.get<queues::QueueSettings>()) {
  StackSegments::set_segment_bytes(std::size_t(settings_.stack_or_default()));
  topology_ = load_topology(settings_.topology);
  std::vector<int> cpus = topology_->allowed_cpus();
  if (!config_.cpus.empty()) {
    for (int c : config_.cpus)
      if (std::find(cpus.begin(), cpus.end(), c) == cpus.end())
        throw joule::error(
            JOULE_ERR_CONFIG,
            "joule: configuration error: JOULE_CPUS=" + format_cpu_list(config_.cpus) + ": CPU " +
                std::to_string(c) + " is not in the process affinity mask (" +
                format_cpu_list(cpus) + ")");
    cpus = config_.cpus;  // the user's order
  } else {
    cpus = topology_->worker_order(cpus);
  }
  // Without JOULE_WORKERS, one worker per CPU up to the CPU quota, on the
  // first CPUs of the list (cpu_budget.hpp).
  cpu_budget_ = read_cpu_budget(settings_, int(cpus.size()));
  oversubscribed_ = cpu_budget_.oversubscribed;
  const int n = cpu_budget_.workers;
  lending_ = std::make_unique<LendingBridge>(*this, make_cpu_manager(config_));
  // With lending, any CPU of the machine may be borrowed and get a worker.
  const int max_workers = lending_->lends() ? std::max(n, topology_->machine_cpus() + n) : n;
  workers_.reserve(n, max_workers, topology_->machine_cpus());
  // Task ids carry their creating thread's slot: worker i's is i + 1, so
  // other threads (spares, the program's own) count from above the last
  // worker's, or their tasks' ids would repeat a worker's (the dump names
  // tasks by id; suspend modes are kept by id).
  next_thread_slot_.store(std::uint64_t(max_workers) + 1, std::memory_order_relaxed);
  // Owned workers' wait slots on their CPUs' nodes (add gives worker i
  // cpus[i % size]); guests' slots are placed by first touch.
  std::vector<int> slot_nodes;
  for (int i = 0; i < n; ++i)
    slot_nodes.push_back(topology_->numa_node_of(cpus[std::size_t(i) % cpus.size()]));
  idle_ = std::make_unique<Idle>(max_workers, slot_nodes);
  make_workers(cpus, slot_nodes);
  observers_ = make_observers(config_);
  observed_ = !observers_.empty();
  // Idle workers learn longer spins (AdaptiveSpin) unless an idle CPU has a
  // better use: lent to another process, or asleep for a DVFS subsystem.
  bool asleep = lending_->lends();
  for (const auto& o : observers_) asleep = asleep || o->wants_idle_cores_asleep();
  spin_cap_us_ = asleep ? 0 : settings_.spin_max_us;
  tasks_.wire();
}

// The owned workers, the ready queues and the workers' nodes.
void Runtime::make_workers(const std::vector<int>& cpus, const std::vector<int>& slot_nodes) {
  const int n = workers_.owned();
  for (int i = 0; i < n; ++i) workers_.add(cpus[std::size_t(i) % cpus.size()]);
  const std::string policy = queue_settings_.policy;
  const int max_workers = workers_.max();
  // Each owned worker's shard header on its node too (queues cannot reach
  // NumaMemory: the engine lends it); guests' share a first-touch block.
  scheduler_ = std::make_unique<queues::ReadyQueues>(
      [&] { return queues::make_policy(policy, max_workers); }, max_workers, n,
      queues::ShardPlacement{worker_state_memory(), slot_nodes});
  scheduler_->set_affinity_map(&affinity_);
  for (int i = 0; i < n; ++i) workers_.set_victims(i);
  scheduler_->set_active(n);
  // Inline execution runs tasks in creation order: not for a policy whose
  // order is the point (priority), nor when lending may add workers.
  tasks_.set_serial_inline(settings_.serial_inline && n == 1 && !lending_->lends() &&
                           !scheduler_->order_matters());
  std::vector<int> worker_nodes;
  for (int i = 0; i < n; ++i) worker_nodes.push_back(workers_.worker(i)->node());
  numa_.build(worker_nodes, topology_->numa_nodes(), !scheduler_->follows_data());
}

Runtime::~Runtime() = default;

RunInfo Runtime::run_info() {
  RunInfo run;
  for (int i = 0; i < workers_.owned(); ++i) run.worker_cpus.push_back(workers_.worker(i)->cpu());
  run.observers = observers_.size();
  run.start_ns = start_ns_;
  run.ready_of = [this](int w) { return int(scheduler_->size_of(w)); };
  run.affinity = &affinity_;
  run.park_worker = [this](int w, bool park) { lending_->park_worker(w, park); };
  return run;
}

void Runtime::launch() {
  perturb::start(std::uint64_t(settings_.perturb_seed));
  start_ns_ = now_ns();
  const std::uint64_t gen = g_generation.fetch_add(1) + 1;
  ThreadContext& ctx = contexts::t_context;
  ctx = ThreadContext{};
  ctx.generation = gen;
  main_root_ = make_root(tasks_.serial_inline());
  ctx.root = ctx.current = main_root_;
  const RunInfo run = run_info();
  for (auto& o : observers_) o->on_runtime_start(run);
  const std::vector<int>& owned = run.worker_cpus;
  CpuManager& cpu_manager = lending_->cpu_manager();
  cpu_manager.start(owned);
  if (lending_->lends()) cpu_manager.set_nearness(nearness_levels(*topology_, owned));
  topology_->save_current_binding();
  workers_.worker(0)->adopt_current_thread(ctx);
  OverflowGuard::install();
  for (int i = 1; i < workers_.owned(); ++i) workers_.worker(i)->start();
  dump_ = std::make_unique<DumpListener>(*this);
  dump_->start(settings_.dump, settings_.watchdog_s, settings_.dump_signal);
  if (config_.dump) {
    std::string text = config_.dump_text();
    text += "  (machine: " + topology_->describe() + "; workers on CPUs";
    for (int i = 0; i < workers_.owned(); ++i)
      text += " " + std::to_string(workers_.worker(i)->cpu());
    text += "; CPU manager: " + std::string(cpu_manager.name()) + ")\n";
    text += "  (" + cpu_budget_.describe() + ")\n";
    std::fputs(text.c_str(), stderr);
  }
}

void Runtime::attach_external(ThreadContext& ctx) {
  ctx = ThreadContext{};
  ctx.generation = g_generation.load();
  auto pool = std::make_unique<TaskPool>();
  // Under the lock: end_serial_inline clears the flag of the roots listed.
  std::lock_guard guard(external_mutex_);
  Task* root = make_root(tasks_.serial_inline());
  ctx.pool = pool.get();
  ctx.root = ctx.current = root;
  ctx.next_id = next_thread_slot_.fetch_add(1) << 40;
  ctx.tid = os_thread_id();
  ctx.slot = idle_->external_slot();
  root->runner.store(ctx.slot, std::memory_order_relaxed);
  external_pools_.push_back(std::move(pool));
  external_roots_.push_back(root);
}

Task* Runtime::spawn_root(ThreadContext& ctx) {
  if (ctx.spawn_root) return ctx.spawn_root;
  // Not the thread's own root: a taskwait at the thread's top level (main's)
  // must not wait for independent tasks, which may live as long as the
  // program (TAMPI's polling task ends at MPI_Finalize). A worker has no
  // root at all. One made here is listed with the external roots, so stop
  // waits for its children and frees it.
  std::lock_guard guard(external_mutex_);
  Task* root = make_root(tasks_.serial_inline());
  root->runner.store(ctx.slot, std::memory_order_relaxed);
  external_roots_.push_back(root);
  ctx.spawn_root = root;
  return root;
}

void Runtime::shutdown() {
  ThreadContext& ctx = context();
  // Everything submitted anywhere must finish before the workers go.
  auto all_done = [&] {
    if (!main_root_->children_done()) return false;
    std::lock_guard guard(external_mutex_);
    for (Task* r : external_roots_)
      if (!r->children_done()) return false;
    return true;
  };
  // The main root first: when this thread owns it, its last child wakes us.
  // Other roots' last children wake their own threads, not this one: those
  // waits poll (Idle::kPollNs), as does the main root's when another
  // thread owns it.
  Task* main = main_root_;
  const bool owns_main = ctx.root == main_root_;
  WaitNote note(ctx, "every task, to stop the runtime", nullptr);
  waits_.help_until(
      ctx, [main] { return main->children_done(); }, nullptr, owns_main ? main_root_ : nullptr,
      owns_main ? Idle::kNoLimit : Idle::kPollNs);
  waits_.help_until(ctx, all_done, nullptr, nullptr, Idle::kPollNs);
  // No task is left for a polling service to end.
  polling_.stop_ticker();
  dump_.reset();  // before the workers go: it reads their contexts
  stopping_.store(true);
  idle_->wake_all();
  CpuManager& cpu_manager = lending_->cpu_manager();
  {
    std::lock_guard guard(workers_.mutex());  // no guest is added from here on
    for (int i = 1; i < workers_.count(); ++i) cpu_manager.wake(workers_.worker(i)->cpu());
  }
  for (int i = 1; i < workers_.count(); ++i) workers_.worker(i)->join();
  workers_.spares().stop();  // every task is done: every spare is pooled
  cpu_manager.stop();
  perturb::stop();
  for (auto& o : observers_) o->on_worker_stop(0);
  topology_->restore_current_binding();
  const RunInfo run = run_info();
  for (auto& o : observers_) o->on_runtime_stop(run);
  if (config_.report) print_report();
  report_lost_exception(main_root_);
  for (Task* r : external_roots_) report_lost_exception(r);
  for (Task* r : external_roots_) release(r);
  release(main_root_);
  TaskPool::flush_remote_frees();
  ctx = ThreadContext{};
}

void Runtime::print_report() const {
  std::ostringstream os;
  const double seconds = double(now_ns() - start_ns_) * 1e-9;
  const std::uint64_t completed = tasks_.completed_total();
  const int owned = workers_.owned();
  os << "== joule report ==\n"
     << "wall time: " << seconds << " s, workers: " << owned << " (+" << workers_.count() - owned
     << " on borrowed CPUs)"
     << ", tasks completed: " << completed << ", iterations: " << iterations_.load() << "\n"
     << "cpus: " << cpu_budget_.describe() << "\n";
  report_queues(os);
  for (const auto& o : observers_) o->report(os);
  std::fputs(os.str().c_str(), stderr);
}

void Runtime::clear_serial_roots() noexcept {
  // Only the one worker reads main_root_'s flags (serial: no other worker
  // exists); the other roots' threads read theirs at their next create.
  main_root_->flags &= std::uint16_t(~task_flag::serial);
  std::lock_guard guard(external_mutex_);
  for (Task* root : external_roots_) root->flags &= std::uint16_t(~task_flag::serial);
}

void Runtime::iteration_boundary() {
  const std::uint64_t n = iterations_.fetch_add(1) + 1;
  if (!observed_) return;
  const std::uint64_t t = now_ns();
  for (auto& o : observers_) o->on_iteration_boundary(n, t);
}

void Runtime::report_lost_exception(Task* root) {
  if (root->domain) {
    delete root->domain;
    root->domain = nullptr;
  }
  if (!root->exception) return;
  try {
    std::rethrow_exception(root->exception);
  } catch (const std::exception& e) {
    core::log_error(std::string("a task threw and no taskwait collected it: ") + e.what());
  } catch (...) {
    core::log_error("a task threw a non-standard exception nobody collected");
  }
  root->exception = nullptr;
}

}  // namespace joule::engine
