// A worker: one thread bound to one CPU that runs ready tasks until the
// runtime stops. Worker 0 is the thread that started the runtime; it has no
// dispatch loop of its own and runs tasks while it waits (taskwait, throttle).
#pragma once

#include <pthread.h>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>

#include "adaptive_spin.hpp"
#include "domain_cache.hpp"
#include "task_pool.hpp"

namespace joule::engine {

using namespace joule::core;

class Runtime;
struct ThreadContext;

class Worker {
 public:
  // node: the NUMA node of cpu. A worker lives on its node: `new (node)
  // Worker(...)` takes whole pages there (NumaMemory), and its task pool's
  // slabs come from that node too, the first one made by the worker's own
  // thread when it starts (the first touch is the worker's).
  Worker(Runtime& rt, int index, int cpu, int node);
  static void* operator new(std::size_t bytes, int node);
  static void* operator new(std::size_t bytes, std::align_val_t, int node) {
    return operator new(bytes, node);
  }
  static void operator delete(void* p) noexcept;
  static void operator delete(void* p, std::align_val_t) noexcept { operator delete(p); }
  static void operator delete(void* p, int) noexcept { operator delete(p); }
  static void operator delete(void* p, std::align_val_t, int) noexcept { operator delete(p); }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  void start();  // spawns the thread (workers 1..n-1)
  void join();
  // Makes the calling thread this worker (worker 0 = the starting thread).
  void adopt_current_thread(ThreadContext& ctx);

  int index() const noexcept { return index_; }
  bool parked() const noexcept { return parked_.load(std::memory_order_relaxed); }
  // DROM: a retired worker's CPU left the process mask; it parks until the
  // CPU comes back.
  void set_retired(bool r) noexcept { retired_.store(r); }
  bool retired() const noexcept { return retired_.load(); }
  // Energy masks: the policy rests this worker. Its CPU is still the
  // process's; with lending on it is lent while the worker rests.
  void set_resting(bool r) noexcept { resting_.store(r); }
  bool resting() const noexcept { return resting_.load(); }
  int cpu() const noexcept { return cpu_; }
  // A resumed task waits for this worker's CPU (Spares): whoever runs
  // there gives it up at its next task boundary.
  std::atomic<bool>& seat_wanted() noexcept { return seat_wanted_; }
  // The context of the thread running as this worker (null before it
  // starts): the state dump reads its published fields.
  const ThreadContext* context() const noexcept { return context_.load(std::memory_order_acquire); }
  int node() const noexcept { return node_; }
  TaskPool& pool() noexcept { return pool_; }
  // The dependency domain kept for the next task that orders children here.
  DomainCache& domains() noexcept { return domains_; }
  // This worker's idle spin, learned from its idle gaps (only its thread
  // uses it: the dispatch loop, or worker 0's thread in taskwait).
  AdaptiveSpin& spin() noexcept { return spin_; }

  // Tasks created and completed by this worker's thread. Only that thread
  // writes them, so no read-modify-write is needed on the hot path.
  void count_created() noexcept { bump(created_); }
  void count_completed() noexcept { bump(completed_); }
  std::uint64_t created() const noexcept { return created_.load(std::memory_order_relaxed); }
  std::uint64_t completed() const noexcept { return completed_.load(std::memory_order_relaxed); }
  // Time this worker's dispatch loop spent spinning idle and asleep (its
  // own thread writes them; read after it stopped).
  std::uint64_t spin_ns() const noexcept { return spin_ns_; }
  std::uint64_t sleep_ns() const noexcept { return sleep_ns_; }
  // Child completions that rode on a sibling's update of their parent's
  // count (TaskLifecycle::hold_child); read after the worker stopped.
  void count_folded(std::uint64_t n) noexcept { folded_ += n; }
  std::uint64_t folded() const noexcept { return folded_; }

 private:
  static void bump(std::atomic<std::uint64_t>& c) noexcept {
    c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  void run();
  void idle_wait(ThreadContext& ctx);
  bool must_leave();
  void park(ThreadContext& ctx);

  Runtime& rt_;
  const int index_;
  const int cpu_;
  const int node_;
  // A pthread, not a std::thread: its stack size is JOULE_STACK_SIZE.
  pthread_t thread_{};
  bool started_ = false;
  TaskPool pool_;
  DomainCache domains_;
  AdaptiveSpin spin_;
  std::atomic<const ThreadContext*> context_{nullptr};
  std::atomic<bool> parked_{false};
  std::atomic<bool> retired_{false};
  std::atomic<bool> resting_{false};
  std::atomic<bool> seat_wanted_{false};
  std::uint64_t spin_ns_ = 0;
  std::uint64_t sleep_ns_ = 0;
  std::uint64_t folded_ = 0;
  alignas(64) std::atomic<std::uint64_t> created_{0};
  alignas(64) std::atomic<std::uint64_t> completed_{0};
};

}  // namespace joule::engine
