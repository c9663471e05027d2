// Affinity key -> worker, as an energy policy planned it. The scheduler
// reads it on every push of a keyed task (lock-free: one hash probe, or one
// relaxed load while the map is empty); only the energy controller writes,
// at its decision points, one writer at a time. A key the map does not know
// goes to spread(): contiguous runs of the keys seen so far per worker.
//
// pinned(): in iterative mode the keyed tasks a worker was given are not
// stolen by the others, so the loads the policy sees are the ones it planned.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>

namespace joule::core {

class AffinityMap {
 public:
  static constexpr int kCapacity = 4096;  // keys; a full table leaves new keys unmapped

  AffinityMap() : slots_(new Slot[kCapacity]) {}

  // The worker planned for `key`, or -1 (unknown: use the default).
  int worker_of(std::uint64_t key) const noexcept {
    if (!used_.load(std::memory_order_relaxed)) return -1;
    for (std::uint32_t i = 0, h = hash(key); i < kCapacity; ++i, h = (h + 1) % kCapacity) {
      const std::uint64_t k = slots_[h].key.load(std::memory_order_acquire);
      if (k == kEmpty) return -1;
      if (k == key + 1) return slots_[h].worker.load(std::memory_order_relaxed);
    }
    return -1;
  }

  // Single writer (the controller). False when the table is full.
  bool set(std::uint64_t key, int worker) noexcept {
    for (std::uint32_t i = 0, h = hash(key); i < kCapacity; ++i, h = (h + 1) % kCapacity) {
      Slot& s = slots_[h];
      const std::uint64_t k = s.key.load(std::memory_order_relaxed);
      if (k == key + 1 || k == kEmpty) {
        s.worker.store(worker, std::memory_order_relaxed);
        if (k == kEmpty) s.key.store(key + 1, std::memory_order_release);
        used_.store(true, std::memory_order_release);
        return true;
      }
    }
    return false;
  }

  // The worker of a key no policy planned, out of n. Keys are usually block
  // numbers, and neighbouring blocks share data at their edges: keys
  // lo..hi (the range seen so far, widened by this call) are cut into n
  // contiguous runs, so one core sweeps a run of neighbours instead of
  // every other block (key % n, which makes two cores write the lines at
  // every block edge). A range of at most n keys keeps key % n. A
  // statistic, not the plan: const, on relaxed atomics of its own.
  int spread(std::uint64_t key, int n) const noexcept {
    widen(key);
    const std::uint64_t lo = lo_.load(std::memory_order_relaxed);
    const std::uint64_t hi = hi_.load(std::memory_order_relaxed);
    if (n <= 1) return 0;
    if (hi - lo < std::uint64_t(n)) return int(key % std::uint64_t(n));
    const double share = double(key - lo) / (double(hi - lo) + 1.0);
    return std::min(n - 1, int(share * n));
  }

  bool pinned() const noexcept { return pinned_.load(std::memory_order_relaxed); }
  void set_pinned(bool on) noexcept { pinned_.store(on, std::memory_order_relaxed); }

 private:
  static constexpr std::uint64_t kEmpty = 0;  // keys are stored + 1
  static std::uint32_t hash(std::uint64_t key) noexcept {
    return std::uint32_t((key * 0x9E3779B97F4A7C15ull) >> 40) % kCapacity;
  }
  // After widen(key), lo_ <= key <= hi_ for every later load: both only move
  // outwards.
  void widen(std::uint64_t key) const noexcept {
    std::uint64_t h = hi_.load(std::memory_order_relaxed);
    while (key > h && !hi_.compare_exchange_weak(h, key, std::memory_order_relaxed)) {
    }
    std::uint64_t l = lo_.load(std::memory_order_relaxed);
    while (key < l && !lo_.compare_exchange_weak(l, key, std::memory_order_relaxed)) {
    }
  }
  struct Slot {
    std::atomic<std::uint64_t> key{kEmpty};
    std::atomic<int> worker{-1};
  };
  std::unique_ptr<Slot[]> slots_;
  std::atomic<bool> used_{false};
  std::atomic<bool> pinned_{false};
  mutable std::atomic<std::uint64_t> lo_{~std::uint64_t(0)};  // empty range: lo_ > hi_
  mutable std::atomic<std::uint64_t> hi_{0};
};

}  // namespace joule::core
