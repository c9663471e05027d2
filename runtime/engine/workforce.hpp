// The workforce room: the workers, owned ones first (one per CPU of the
// process, decided at start) and guests after (on CPUs borrowed while the
// program runs), each with its steal order. Workers never move or go away
// while the runtime runs: any thread reads them without a lock, while
// guests are added under mutex(). It keeps the pool of spare threads that
// stand in for workers whose task is blocked (spare_threads.hpp).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "spare_threads.hpp"
#include "worker.hpp"

namespace joule::engine {

class Runtime;

class Workforce {
 public:
  explicit Workforce(Runtime& rt) : rt_(rt) {}
  // Room for max workers (owned + guests), CPUs numbered below machine_cpus.
  void reserve(int owned, int max, int machine_cpus);

  // Workers on the process's own CPUs (guests on borrowed CPUs come after).
  int owned() const noexcept { return owned_; }
  int max() const noexcept { return max_; }
  // All workers so far, guests included; worker(i) for i < count().
  int count() const noexcept { return count_.load(std::memory_order_acquire); }
  Worker* worker(int i) const noexcept {
    return slots_[std::size_t(i)].load(std::memory_order_acquire);
  }
  // The calling thread's worker index, or -1 when it is not a worker.
  int current();
  // cpu is one a worker could be added on (a CPU of the machine).
  bool covers(int cpu) const noexcept { return cpu >= 0 && std::size_t(cpu) < of_cpu_.size(); }
  // The worker on cpu, or -1 (caller holds mutex()).
  int index_of_cpu(int cpu) const noexcept;
  std::mutex& mutex() noexcept { return mutex_; }
  // A new worker on cpu (caller holds mutex(), or the runtime is starting).
  Worker& add(int cpu);
  // Worker i's steal order: the others, nearest first by the topology.
  void set_victims(int index);
  // Threads that take a blocked task's CPU over (spare_threads.hpp).
  Spares& spares() noexcept { return spares_; }
  const Spares& spares() const noexcept { return spares_; }

 private:
  Runtime& rt_;
  int owned_ = 0;
  int max_ = 0;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::unique_ptr<std::atomic<Worker*>[]> slots_;
  std::atomic<int> count_{0};
  std::vector<int> of_cpu_;  // cpu -> worker index or -1 (mutex_)
  Spares spares_{rt_};
};

}  // namespace joule::engine
