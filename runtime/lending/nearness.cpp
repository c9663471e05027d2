#include "nearness.hpp"

namespace joule::lending {

// Each CPU counts in the first level that names it; the last level is
// every CPU no level named.
void Nearness::set(const std::vector<std::vector<int>>& levels) {
  std::lock_guard guard(mutex_);
  std::uint64_t seen[kMaskWords] = {};
  int n = 0;
  for (const auto& level : levels) {
    if (n == kMaxLevels - 1) break;
    std::uint64_t bits[kMaskWords] = {};
    for (int c : level)
      if (c >= 0 && c < kMaxCpus && !(seen[c / 64] >> (c % 64) & 1))
        bits[c / 64] |= std::uint64_t(1) << (c % 64);
    for (int i = 0; i < kMaskWords; ++i) {
      near_[n][i].store(bits[i], std::memory_order_relaxed);
      seen[i] |= bits[i];
    }
    ++n;
  }
  for (int i = 0; i < kMaskWords; ++i) near_[n][i].store(~seen[i], std::memory_order_relaxed);
  levels_.store(n + 1, std::memory_order_release);
}

}  // namespace joule::lending
