// OpenMP memory allocators (allocators.cpp, allocator_api.cpp): the numbers
// of GCC's omp.h (omp_allocator_handle_t, omp_alloctrait_key_t,
// omp_alloctrait_value_t) and what an allocator made by omp_init_allocator
// keeps.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace joule::omp {

using Handle = std::uintptr_t;

// omp_allocator_handle_t: omp_null_allocator, then the predefined ones.
inline constexpr Handle kNullAllocator = 0;
inline constexpr Handle kDefaultMemAlloc = 1;
inline constexpr Handle kLastPredefined = 8;  // omp_thread_mem_alloc

// omp_memspace_handle_t: default, large_cap, const, high_bw, low_lat.
inline constexpr std::uintptr_t kHighBwMemSpace = 3;
inline constexpr std::uintptr_t kLastMemSpace = 4;

// omp_alloctrait_key_t.
enum TraitKey : int {
  kSyncHint = 1,
  kAlignment = 2,
  kAccess = 3,
  kPoolSize = 4,
  kFallback = 5,
  kFbData = 6,
  kPinned = 7,
  kPartition = 8
};

// omp_alloctrait_value_t.
inline constexpr std::uintptr_t kAtvDefault = ~std::uintptr_t(0);
enum TraitValue : int {
  kFalse = 0,
  kTrue = 1,
  kContended = 3,
  kUncontended = 4,
  kSerialized = 5,
  kPrivate = 6,
  kAll = 7,
  kThread = 8,
  kPteam = 9,
  kCgroup = 10,
  kDefaultMemFb = 11,
  kNullFb = 12,
  kAbortFb = 13,
  kAllocatorFb = 14,
  kEnvironment = 15,
  kNearest = 16,
  kBlocked = 17,
  kInterleaved = 18
};

inline constexpr std::size_t kNoPool = ~std::size_t(0);

struct Allocator {
  std::uintptr_t memspace = 0;
  std::size_t alignment = 1;
  int fallback = kDefaultMemFb;
  Handle fb_data = kNullAllocator;
  std::size_t pool_size = kNoPool;
  bool interleaved = false;          // partition(interleaved): pages over the NUMA nodes
  std::atomic<std::size_t> used{0};  // bytes charged to the pool
};

// A handle of omp_init_allocator's, else null (predefined or null).
Allocator* as_allocator(Handle h);
// omp_null_allocator stands for the default allocator.
Handle resolve(Handle h);
Handle default_allocator();
void set_default_allocator(Handle h);
// OMP_ALLOCATOR's value, as joule starts (icv.cpp).
void load_default_allocator(Handle h);
// align 0: the allocator's own; null for size 0 or as the fallback says.
void* allocate(std::size_t align, std::size_t size, Handle h);
void deallocate(void* p);
void* reallocate(void* p, std::size_t size, Handle h, Handle free_h);

}  // namespace joule::omp
