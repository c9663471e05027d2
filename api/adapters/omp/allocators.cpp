// OpenMP memory allocators (OpenMP 5.2 §6): omp_init_allocator and its
// traits, omp_alloc and its kin, the default allocator (OMP_ALLOCATOR).
// Handles, trait keys and values are the numbers of GCC's omp.h; the
// predefined allocators are handles 1..8, an allocator of our own is the
// address of its Allocator. Every block carries a header in front of it (the
// allocator that gave it, its size, the bytes charged to a pool), so that
// omp_free and omp_realloc need no allocator argument, as OpenMP allows. As
// libgomp does, a pool is charged the header too (32 bytes per block) and the
// memory spaces all come from malloc; a partition(interleaved) allocator
// takes whole pages spread over the NUMA nodes (joule_alloc).
#include "allocators.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "joule/memory.h"
#include "joule/team.h"
#include "team.hpp"

namespace joule::omp {
namespace {

struct Header {
  void* raw;            // what malloc / joule_alloc returned
  std::size_t size;     // bytes asked for
  std::size_t charged;  // bytes charged to the allocator's pool (0: no pool)
  Handle allocator;     // the allocator that gave the block
};
static_assert(sizeof(Header) == 32);

std::atomic<Handle> g_default{kDefaultMemAlloc};  // def-allocator-var

// No alignment beyond this is honoured (the block could not be larger).
constexpr std::size_t kMaxAlign = std::size_t(1) << 40;

// A power of two from max_align_t up (OpenMP requires one; others round up).
std::size_t round_pow2(std::size_t a) {
  std::size_t p = alignof(std::max_align_t);
  while (p < a && p < kMaxAlign) p <<= 1;
  return p;
}

// Charges `bytes` to the pool; false when it would overflow.
bool charge(Allocator* a, std::size_t bytes) {
  if (!a || a->pool_size == kNoPool) return true;
  std::size_t used = a->used.load(std::memory_order_relaxed);
  do {
    if (bytes > a->pool_size || used > a->pool_size - bytes) return false;
  } while (!a->used.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
  return true;
}

void uncharge(Allocator* a, std::size_t bytes) {
  if (a && bytes) a->used.fetch_sub(bytes, std::memory_order_relaxed);
}

Header* header_of(void* p) { return static_cast<Header*>(p) - 1; }

// The block from raw memory: the header right before the aligned address.
void* raw_block(Allocator* a, std::size_t align, std::size_t size, std::size_t* total) {
  if (size > SIZE_MAX / 2 - sizeof(Header) - align) return nullptr;
  *total = size + sizeof(Header) + (align > alignof(std::max_align_t) ? align : 0);
  if (a && a->interleaved) {
    const joule_placement_t where{JOULE_PLACE_INTERLEAVED, 0, 0, 0, nullptr, nullptr};
    return joule_alloc(*total, &where);
  }
  return std::malloc(*total);
}

void release_raw(Handle h, void* raw) {
  Allocator* a = as_allocator(h);
  if (a && a->interleaved)
    joule_free(raw);
  else
    std::free(raw);
}

[[noreturn]] void out_of_memory(std::size_t size) {
  std::fprintf(stderr,
               "libjoule-omp: out of memory allocating %zu bytes (omp_alloc with an allocator "
               "whose fallback is abort_fb)\n",
               size);
  std::exit(1);
}

// What an allocator does when it cannot give the memory (OpenMP 5.2 §6.2
// "fallback"); omp_default_mem_alloc itself answers null, as libgomp.
void* fall_back(Handle h, std::size_t align, std::size_t size) {
  Allocator* a = as_allocator(h);
  const int fb = a ? a->fallback : h == kDefaultMemAlloc ? kNullFb : kDefaultMemFb;
  switch (fb) {
    case kDefaultMemFb:
      return allocate(align, size, kDefaultMemAlloc);
    case kAbortFb:
      out_of_memory(size);
    case kAllocatorFb:
      if (a->fb_data == h) return nullptr;  // itself as its fallback: nothing more to try
      return allocate(align, size, a->fb_data ? a->fb_data : kDefaultMemAlloc);
    default:
      return nullptr;
  }
}

}  // namespace

Allocator* as_allocator(Handle h) {
  return h > kLastPredefined ? reinterpret_cast<Allocator*>(h) : nullptr;
}

Handle resolve(Handle h) { return h == kNullAllocator ? default_allocator() : h; }

// OMP_ALLOCATOR is read at the first OpenMP call, which may be this one.
Handle default_allocator() {
  ensure_init();
  return g_default.load(std::memory_order_relaxed);
}
void set_default_allocator(Handle h) {
  ensure_init();
  g_default.store(h, std::memory_order_relaxed);
}
void load_default_allocator(Handle h) { g_default.store(h, std::memory_order_relaxed); }

void* allocate(std::size_t align, std::size_t size, Handle h) {
  h = resolve(h);
  if (size == 0) return nullptr;
  Allocator* a = as_allocator(h);
  const std::size_t asked = a && a->alignment > align ? a->alignment : align;
  if (asked > kMaxAlign) return fall_back(h, align, size);
  align = round_pow2(asked);
  std::size_t total = 0;
  void* raw = raw_block(a, align, size, &total);
  const std::size_t charged = a && a->pool_size != kNoPool ? total : 0;
  if (raw && !charge(a, charged)) {
    release_raw(h, raw);
    raw = nullptr;
  }
  if (!raw) return fall_back(h, align, size);
  const auto base = reinterpret_cast<std::uintptr_t>(raw) + sizeof(Header);
  void* p = reinterpret_cast<void*>((base + align - 1) & ~std::uintptr_t(align - 1));
  *header_of(p) = Header{raw, size, charged, h};
  return p;
}

void deallocate(void* p) {
  if (!p) return;
  const Header h = *header_of(p);
  uncharge(as_allocator(h.allocator), h.charged);
  release_raw(h.allocator, h.raw);
}

// Into the same allocator the old block's charge is returned first, so that
// a pool that holds only the new size still grants it (as libgomp).
void* reallocate(void* p, std::size_t size, Handle h, Handle free_h) {
  (void)free_h;  // the header names the block's allocator
  if (!p) return allocate(0, size, h);
  if (size == 0) {
    deallocate(p);
    return nullptr;
  }
  Header* old = header_of(p);
  if (h == kNullAllocator) h = old->allocator;
  Allocator* same = resolve(h) == old->allocator ? as_allocator(h) : nullptr;
  if (same) uncharge(same, old->charged);
  void* q = allocate(0, size, h);
  if (!q) {
    if (same) same->used.fetch_add(old->charged, std::memory_order_relaxed);
    return nullptr;
  }
  std::memcpy(q, p, old->size < size ? old->size : size);
  if (same) old->charged = 0;
  deallocate(p);
  return q;
}

}  // namespace joule::omp
