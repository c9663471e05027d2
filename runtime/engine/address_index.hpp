// An insert-only open-addressing hash table from a start address to a value,
// cleared as a whole. It is the exact-address fast path of DepDomain: most
// accesses name a region that an earlier sibling named exactly.
//
// The cost of a lookup must not depend on where the allocator put the data:
// keys are fully mixed before their top bits pick the slot, so contiguous
// cells of any size, power-of-two and page
// strides, and arrays that straddle large alignment boundaries all spread
// evenly; with linear probing at a load factor of at most 1/2 the expected
// probe length stays below 2.5 (tests/engine/address_index_test.cpp
// checks it on adversarial layouts, by counting probes).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "huge_page_allocator.hpp"

namespace joule::engine {

template <class V>
class AddressIndex {
 public:
  // The key's bits, mixed: the slot is the top bits of this. A caller that
  // looks one key up more than once (prefetch, find, insert) mixes it once
  // and passes it to the _mixed forms.
  static std::uint64_t mix(std::uintptr_t key) noexcept {
    std::uint64_t k = key;
    k = (k ^ (k >> 30)) * 0xbf58476d1ce4e5b9ull;
    return (k ^ (k >> 27)) * 0x94d049bb133111ebull;
  }

  V* find(std::uintptr_t key) const noexcept { return find_mixed(key, mix(key)); }
  V* find_mixed(std::uintptr_t key, std::uint64_t mixed) const noexcept {
    if (slots_.empty()) return nullptr;
    for (std::size_t i = home(mixed);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (!s.value) return nullptr;
      if (s.key == key) return s.value;
    }
  }

  // Starts loading the slot a lookup of `key` begins at.
  void prefetch(std::uintptr_t key) const noexcept { prefetch_mixed(mix(key)); }
  void prefetch_mixed(std::uint64_t mixed) const noexcept {
    if (!slots_.empty()) __builtin_prefetch(&slots_[home(mixed)]);
  }

  // Inserts or replaces.
  void insert(std::uintptr_t key, V* value) { insert_mixed(key, mix(key), value); }
  void insert_mixed(std::uintptr_t key, std::uint64_t mixed, V* value) {
    if ((count_ + 1) * 2 > slots_.size()) grow();
    for (std::size_t i = home(mixed);; i = (i + 1) & mask_) {
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

  std::size_t size() const noexcept { return count_; }
  std::size_t capacity() const noexcept { return slots_.size(); }

  // Slots a lookup of `key` examines (present or not): for tests and
  // diagnostics, off the hot path.
  std::size_t probe_length(std::uintptr_t key) const noexcept {
    if (slots_.empty()) return 0;
    std::size_t n = 1;
    for (std::size_t i = home(mix(key));; i = (i + 1) & mask_, ++n)
      if (!slots_[i].value || slots_[i].key == key) return n;
  }

 private:
  struct Slot {
    std::uintptr_t key = 0;
    V* value = nullptr;
  };

  // The SplitMix64 finaliser (mix): every key bit reaches every slot bit. A
  // single Fibonacci multiply is not enough: for strides of 2^s it spreads
  // keys only as well as frac(2^s * phi) is irrational, and 32-byte strides
  // already cluster. Its last step, k ^ (k >> 31), is left out of mix: it
  // changes no bit above bit 32, and a slot is the top bits (below 2^31
  // slots, the same slot either way).
  std::size_t home(std::uint64_t mixed) const noexcept { return std::size_t(mixed >> shift_); }

  void grow() {
    std::vector<Slot, HugePageAllocator<Slot>> old = std::move(slots_);
    const std::size_t cap = old.empty() ? 64 : old.size() * 2;
    slots_.assign(cap, Slot{});
    mask_ = cap - 1;
    shift_ = 64 - unsigned(__builtin_ctzll(cap));
    count_ = 0;
    for (const Slot& s : old)
      if (s.value) insert(s.key, s.value);
  }

  std::vector<Slot, HugePageAllocator<Slot>> slots_;
  std::size_t mask_ = 0;
  unsigned shift_ = 64;
  std::size_t count_ = 0;
};

}  // namespace joule::engine
