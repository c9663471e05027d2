// Where a session borrows first: levels of CPUs, nearest first (same core,
// shared cache, NUMA node, package, ...), kept as bitmaps so that a borrower
// ANDs a level with the table's idle summary one word at a time. Whoever
// knows the machine computes the levels (the engine, from hwloc); CPUs in no
// level form the last one. Without levels every CPU is equally near.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "shm_layout.hpp"

namespace joule::lending {

class Nearness {
 public:
  static constexpr int kMaxLevels = 8;

  void set(const std::vector<std::vector<int>>& levels);
  // 0 until set; then the levels given (at most kMaxLevels - 1) plus the rest.
  int levels() const noexcept { return levels_.load(std::memory_order_acquire); }
  // Word i of level l's bitmap (CPUs 64i .. 64i+63).
  std::uint64_t word(int level, int i) const noexcept {
    return near_[level][i].load(std::memory_order_relaxed);
  }

 private:
  std::atomic<std::uint64_t> near_[kMaxLevels][kMaskWords];
  std::atomic<int> levels_{0};
  alignas(64) std::mutex mutex_;
};

}  // namespace joule::lending
