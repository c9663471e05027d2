// An insert-only open-addressing hash table from a start address to a value,
// cleared as a whole. It is the exact-address fast path of DepDomain: most
// accesses name a region that an earlier sibling named exactly.
#pragma once

#include <cstdint>
#include <vector>

namespace joule::rt {

template <class V>
class AddressIndex {
 public:
  V* find(std::uintptr_t key) const noexcept {
    if (slots_.empty()) return nullptr;
    for (std::size_t i = home(key);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (!s.value) return nullptr;
      if (s.key == key) return s.value;
    }
  }

  // Inserts or replaces.
  void insert(std::uintptr_t key, V* value) {
    if ((count_ + 1) * 2 > slots_.size()) grow();
    for (std::size_t i = home(key);; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (!s.value) {
        s = {key, value};
        ++count_;
        return;
      }
      if (s.key == key) {
        s.value = value;
        return;
      }
    }
  }

  void clear() noexcept {
    if (count_ == 0) return;
    std::fill(slots_.begin(), slots_.end(), Slot{});
    count_ = 0;
  }

 private:
  struct Slot {
    std::uintptr_t key = 0;
    V* value = nullptr;
  };

  // Neighbouring addresses land in neighbouring slots (sibling tasks walk
  // arrays in order, so probes stay in cache); the high bits are mixed in so
  // far-apart regions with the same low bits do not pile up.
  std::size_t home(std::uintptr_t key) const noexcept {
    const std::uintptr_t k = key >> 3;
    return std::size_t(k ^ ((k >> 17) * 0x9E3779B97F4A7C15ull)) & mask_;
  }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    const std::size_t cap = old.empty() ? 64 : old.size() * 2;
    slots_.assign(cap, Slot{});
    mask_ = cap - 1;
    count_ = 0;
    for (const Slot& s : old)
      if (s.value) insert(s.key, s.value);
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::size_t count_ = 0;
};

}  // namespace joule::rt
