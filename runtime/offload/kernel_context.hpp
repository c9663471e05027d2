// What a card task's body sees (through joule::card_context): its regions
// mapped to the card's copies, the card's thread count and a data-parallel
// loop over the card's threads. The emulated card and the host fallback
// (device::host) implement it.
#pragma once

#include <cstdint>

namespace joule::offload {

using ChunkFn = void (*)(void* ctx, std::int64_t lo, std::int64_t hi);

class KernelContext {
 public:
  virtual ~KernelContext() = default;
  // The card's copy of a host address inside one of the task's regions;
  // throws joule::error when the address was not copied to the card.
  virtual void* map(const void* host) const = 0;
  virtual int threads() const = 0;
  // fn(ctx, lo, hi) over [begin, end), one static chunk per card thread
  // (chunk i on thread i, so the placement decides where each chunk runs).
  virtual void parallel_for(ChunkFn fn, void* ctx, std::int64_t begin, std::int64_t end) = 0;
};

}  // namespace joule::offload
