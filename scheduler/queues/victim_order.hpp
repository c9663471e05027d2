// Where a thief looks for work, nearest first. Each worker gets its victims
// grouped by how far their CPU is from its own (same core, a shared cache,
// the same NUMA node, the same package), computed once by the engine from
// the machine's topology; anything not in a group (guests on borrowed CPUs,
// or no topology at all) is reached by a bounded random window over every
// shard. Taking work from the nearest busy worker first keeps stolen data in
// a cache the thief shares (Olivier et al., "Scheduling task parallelism on
// multi-socket multicore systems", ROSS 2011).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace joule::queues {

// How far a victim is from the thief; `any` is the random window.
enum class StealDistance : std::uint8_t { sibling, cache, node, package, any };
inline constexpr int kStealDistances = 5;
const char* steal_distance_name(StealDistance d) noexcept;

class VictimOrder {
 public:
  struct Level {
    StealDistance distance;
    std::vector<int> victims;  // shard indices
    // The same victims as a bitmap, one bit per shard: ANDed with the work
    // summary, a level is searched one word per 64 workers.
    std::vector<std::uint64_t> mask;
  };
  using Levels = std::vector<Level>;

  explicit VictimOrder(int shards)
      : shards_(shards),
        levels_(
            std::make_unique<std::atomic<const Levels*>[]>(std::size_t(shards > 0 ? shards : 1))) {}
  ~VictimOrder() {
    for (int i = 0; i < shards_; ++i) delete levels_[std::size_t(i)].load();
  }
  VictimOrder(const VictimOrder&) = delete;
  VictimOrder& operator=(const VictimOrder&) = delete;

  // Once per worker, before its thread steals (a later call is ignored:
  // thieves read the levels without a lock).
  void set(int worker, Levels levels) {
    if (worker < 0 || worker >= shards_) return;
    for (Level& l : levels) {
      l.mask.assign(std::size_t((shards_ + 63) / 64), 0);
      for (int v : l.victims)
        if (v >= 0 && v < shards_) l.mask[std::size_t(v / 64)] |= std::uint64_t(1) << (v % 64);
    }
    auto* fresh = new Levels(std::move(levels));
    const Levels* none = nullptr;
    if (!levels_[std::size_t(worker)].compare_exchange_strong(none, fresh)) delete fresh;
  }
  // nullptr: the worker has no levels (only the random window).
  const Levels* of(int worker) const noexcept {
    if (worker < 0 || worker >= shards_) return nullptr;
    return levels_[std::size_t(worker)].load(std::memory_order_acquire);
  }

 private:
  int shards_;
  std::unique_ptr<std::atomic<const Levels*>[]> levels_;
};

}  // namespace joule::queues
