// The lending room: the engine's side of CPU lending (runtime/lending holds
// the node-wide policy behind the CpuManager). Workers for the CPUs the
// manager hands over, CPUs reclaimed or borrowed when ready work outnumbers
// the workers, DROM mask changes, and the energy policy's resting workers.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "cpu_manager.hpp"
#include "topology.hpp"

namespace joule::engine {

using namespace joule::core;

class Runtime;

class LendingBridge {
 public:
  LendingBridge(Runtime& rt, std::unique_ptr<CpuManager> manager);

  CpuManager& cpu_manager() noexcept { return *cpu_manager_; }
  bool lends() const noexcept { return lending_; }
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
  // Energy masks: retire / bring back a worker (RunInfo::park_worker).
  void park_worker(int index, bool park);

 private:
  void activate_cpu(int cpu);
  void apply_mask(const std::vector<int>& mask);

  Runtime& rt_;
  std::unique_ptr<CpuManager> cpu_manager_;
  bool lending_ = false;
  std::atomic<int> parked_{0};
  std::atomic<std::uint64_t> last_acquire_ns_{0};
  std::atomic<std::uint64_t> last_drom_ns_{0};
};

// CPUs of the machine by nearness to `owned`, one level per StealDistance,
// nearest first; the CPU manager borrows in that order.
std::vector<std::vector<int>> nearness_levels(const Topology& topo, const std::vector<int>& owned);

}  // namespace joule::engine
