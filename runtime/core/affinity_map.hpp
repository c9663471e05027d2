// Affinity key -> worker, as an energy policy planned it. The scheduler
// reads it on every push of a keyed task (lock-free: one hash probe, or one
// relaxed load while the map is empty); only the energy controller writes,
// at its decision points, one writer at a time. A key the map does not know
// goes where it always went (key % workers).
//
// pinned(): in iterative mode the keyed tasks a worker was given are not
// stolen by the others, so the loads the policy sees are the ones it planned.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace joule::rt {

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

  bool pinned() const noexcept { return pinned_.load(std::memory_order_relaxed); }
  void set_pinned(bool on) noexcept { pinned_.store(on, std::memory_order_relaxed); }

 private:
  static constexpr std::uint64_t kEmpty = 0;  // keys are stored + 1
  static std::uint32_t hash(std::uint64_t key) noexcept {
    return std::uint32_t((key * 0x9E3779B97F4A7C15ull) >> 40) % kCapacity;
  }
  struct Slot {
    std::atomic<std::uint64_t> key{kEmpty};
    std::atomic<int> worker{-1};
  };
  std::unique_ptr<Slot[]> slots_;
  std::atomic<bool> used_{false};
  std::atomic<bool> pinned_{false};
};

}  // namespace joule::rt
