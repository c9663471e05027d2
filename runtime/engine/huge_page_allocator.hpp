// A std allocator that asks for transparent huge pages on large blocks.
// The dependency index and the task pools are read at random by the thread
// that creates tasks; past a few MB each miss there also missed the TLB.
// In 2 MB pages one TLB entry covers what took 512 (Linux "madvise" THP
// mode; where THP is off or unavailable this is an aligned allocation).
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>

namespace joule::engine {

inline constexpr std::size_t kHugePage = std::size_t(2) << 20;

// Blocks of at least one huge page come from aligned_alloc and are advised;
// smaller ones from operator new. The size decides, so free knows which.
inline void* allocate_maybe_huge(std::size_t bytes) {
  if (bytes < kHugePage) return ::operator new(bytes);
  const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  void* p = std::aligned_alloc(kHugePage, rounded);
  if (!p) throw std::bad_alloc();
  madvise(p, rounded, MADV_HUGEPAGE);  // advice only: failure changes nothing
  return p;
}

inline void free_maybe_huge(void* p, std::size_t bytes) noexcept {
  if (bytes < kHugePage)
    ::operator delete(p);
  else
    std::free(p);
}

template <class T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(allocate_maybe_huge(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { free_maybe_huge(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace joule::engine
