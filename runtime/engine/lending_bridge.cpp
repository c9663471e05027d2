// The lending room (lending_bridge.hpp): workers for the CPUs the
// CpuManager hands over, and DROM mask changes. The node-wide policy lives
// in runtime/lending.
#include <algorithm>

#include "perturb.hpp"
#include "runtime.hpp"

namespace joule::engine {

using namespace joule::core;
namespace {

constexpr std::uint64_t kAcquireIntervalNs = 20'000;  // ask the table at most this often
constexpr std::uint64_t kDromIntervalNs = 1'000'000;

bool rate_limited(std::atomic<std::uint64_t>& last, std::uint64_t interval) {
  const std::uint64_t now = now_ns();
  std::uint64_t prev = last.load(std::memory_order_relaxed);
  if (now - prev < interval) return true;
  return !last.compare_exchange_strong(prev, now, std::memory_order_relaxed);
}

}  // namespace

// The machine's CPUs grouped by their nearest owned CPU's distance, nearest
// first, for the CPU manager to borrow near CPUs first (docs/lending.md).
std::vector<std::vector<int>> nearness_levels(const Topology& topo, const std::vector<int>& owned) {
  std::vector<std::vector<int>> levels(std::size_t(queues::kStealDistances));
  if (owned.empty()) return levels;
  for (int c = 0, n = topo.machine_cpus(); c < n; ++c) {
    if (std::find(owned.begin(), owned.end(), c) != owned.end()) continue;
    auto best = queues::StealDistance::any;
    for (int o : owned) {
      best = std::min(best, topo.distance(c, o));
      if (best == queues::StealDistance::sibling) break;
    }
    levels[std::size_t(best)].push_back(c);
  }
  return levels;
}

LendingBridge::LendingBridge(Runtime& rt, std::unique_ptr<CpuManager> manager)
    : rt_(rt), cpu_manager_(std::move(manager)), lending_(cpu_manager_->lends()) {}

// A CPU this process may now use: its parked worker wakes by itself (the
// manager's transition woke it); a CPU without a worker gets a new guest.
void LendingBridge::activate_cpu(int cpu) {
  Workforce& workers = rt_.workers();
  std::lock_guard guard(workers.mutex());
  if (rt_.stopping()) return;
  if (!workers.covers(cpu)) return;
  const int index = workers.index_of_cpu(cpu);
  if (index >= 0) {
    workers.worker(index)->set_retired(false);
    cpu_manager_->wake(cpu);
    return;
  }
  workers.add(cpu).start();
}

void LendingBridge::maybe_acquire() {
  JOULE_PERTURB_POINT(lending);
  // The clock first: at most one acquire per interval happens anyway, and
  // the queue count below reads every shard (machine CPUs + workers).
  if (now_ns() - last_acquire_ns_.load(std::memory_order_relaxed) < kAcquireIntervalNs) return;
  const std::int64_t ready = rt_.scheduler().size();
  if (ready <= 0) return;
  // Idle workers of our own that are not parked will pick the work up.
  const int awake_idle = rt_.idle().sleepers();
  const std::int64_t want = ready - awake_idle;
  if (want <= 0 || rate_limited(last_acquire_ns_, kAcquireIntervalNs)) return;
  std::vector<int> got;
  cpu_manager_->acquire(int(std::min<std::int64_t>(want, rt_.workers().max())), got);
  for (int cpu : got) activate_cpu(cpu);
}

int LendingBridge::reserve_workers(int want) {
  if (want <= 0) return 0;
  const Workforce& workers = rt_.workers();
  if (!lending_) return std::min(want, workers.count());
  int usable = 0;
  for (int i = 0, n = workers.count(); i < n; ++i)
    if (!workers.worker(i)->retired() && cpu_manager_->usable(workers.worker(i)->cpu())) ++usable;
  if (usable < want) {
    std::vector<int> got;
    cpu_manager_->acquire(want - usable, got);
    for (int cpu : got) activate_cpu(cpu);
    usable += int(got.size());
  }
  return std::min(want, usable);
}

void LendingBridge::poll_drom() {
  if (!lending_ || rate_limited(last_drom_ns_, kDromIntervalNs)) return;
  std::vector<int> mask;
  if (cpu_manager_->poll_mask(mask)) apply_mask(mask);
}

// Workers whose CPU left the mask retire (park) at their next task boundary;
// CPUs that joined get a worker. Worker 0 (the user's thread) is never
// retired: its CPU stays in use while that thread runs.
void LendingBridge::apply_mask(const std::vector<int>& mask) {
  Workforce& workers = rt_.workers();
  std::vector<int> added;
  {
    std::lock_guard guard(workers.mutex());
    for (int i = 1; i < workers.count(); ++i) {
      Worker* w = workers.worker(i);
      const bool in_mask = std::find(mask.begin(), mask.end(), w->cpu()) != mask.end();
      if (i >= workers.owned() && !in_mask) continue;  // a guest on a borrowed CPU
      if (w->retired() == in_mask) {
        w->set_retired(!in_mask);
        cpu_manager_->wake(w->cpu());
      }
    }
    for (int cpu : mask) {
      if (!workers.covers(cpu)) continue;
      if (workers.index_of_cpu(cpu) < 0) added.push_back(cpu);
    }
  }
  for (int cpu : added) activate_cpu(cpu);
}

// An energy policy's CPU mask: the worker rests (parks) at its next task
// boundary; its CPU sleeps, or with lending on is lent until the worker is
// brought back and the runtime reclaims it for queued work.
void LendingBridge::park_worker(int index, bool park) {
  Workforce& workers = rt_.workers();
  std::lock_guard guard(workers.mutex());
  if (index <= 0 || index >= workers.owned() || rt_.stopping()) return;
  Worker* w = workers.worker(index);
  if (w->resting() == park) return;
  w->set_resting(park);
  cpu_manager_->wake(w->cpu());
  if (park) rt_.idle().wake(&rt_.idle().worker_slot(index));  // it leaves its idle sleep to park
}

}  // namespace joule::engine
