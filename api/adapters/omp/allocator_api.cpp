// The omp_* allocator routines (OpenMP 5.2 §18.13) and their gfortran
// twins (arguments by reference; omp_init_allocator_8_ for an integer(8)
// trait count). omp_init_allocator answers omp_null_allocator for what it
// cannot honour, as libgomp 12 does: an unknown memory space or trait, a
// bad trait value, pinned memory, and the high-bandwidth space (no memkind).
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "allocators.hpp"
#include "team.hpp"

using namespace joule::omp;

namespace {

struct Trait {
  int key;
  std::uintptr_t value;
};

bool one_of(std::uintptr_t v, std::initializer_list<int> ok) {
  for (int o : ok)
    if (v == std::uintptr_t(o)) return true;
  return false;
}

// One trait into a; false when the key or its value is not valid.
bool apply_trait(Allocator& a, const Trait& t) {
  const std::uintptr_t v = t.value;
  const bool dflt = v == kAtvDefault;
  switch (t.key) {
    case kSyncHint:
      return dflt || one_of(v, {kContended, kUncontended, kSerialized, kPrivate});
    case kAccess:
      return dflt || one_of(v, {kAll, kCgroup, kPteam, kThread});
    case kAlignment:
      if (dflt) return true;
      if (v == 0 || (v & (v - 1)) != 0) return false;
      a.alignment = v;
      return true;
    case kPoolSize:
      a.pool_size = dflt ? kNoPool : std::size_t(v);
      return true;
    case kFallback:
      if (dflt) return true;
      if (!one_of(v, {kDefaultMemFb, kNullFb, kAbortFb, kAllocatorFb})) return false;
      a.fallback = int(v);
      return true;
    case kFbData:
      a.fb_data = v;
      return true;
    case kPinned:
      return dflt || v == kFalse;  // pinned memory: libgomp 12 has none either
    case kPartition:
      if (dflt) return true;
      if (!one_of(v, {kEnvironment, kNearest, kBlocked, kInterleaved})) return false;
      a.interleaved = v == kInterleaved;
      return true;
    default:
      return false;
  }
}

}  // namespace

extern "C" {

JOULE_EXPORT Handle omp_init_allocator(std::uintptr_t memspace, int ntraits, const Trait* traits) {
  if (memspace > kLastMemSpace || memspace == kHighBwMemSpace) return kNullAllocator;
  auto* a = new Allocator;
  a->memspace = memspace;
  for (int i = 0; i < ntraits; ++i)
    if (!apply_trait(*a, traits[i])) {
      delete a;
      return kNullAllocator;
    }
  return reinterpret_cast<Handle>(a);
}

JOULE_EXPORT void omp_destroy_allocator(Handle h) { delete as_allocator(h); }

JOULE_EXPORT void omp_set_default_allocator(Handle h) { set_default_allocator(resolve(h)); }
JOULE_EXPORT Handle omp_get_default_allocator(void) { return default_allocator(); }

JOULE_EXPORT void* omp_alloc(std::size_t size, Handle h) { return allocate(0, size, h); }

JOULE_EXPORT void* omp_aligned_alloc(std::size_t align, std::size_t size, Handle h) {
  return allocate(align, size, h);
}

// n * size past SIZE_MAX is memory nobody can give: the fallback decides.
JOULE_EXPORT void* omp_aligned_calloc(std::size_t align, std::size_t n, std::size_t size,
                                      Handle h) {
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(n, size, &bytes)) bytes = SIZE_MAX;
  void* p = allocate(align, bytes, h);
  if (p) std::memset(p, 0, bytes);
  return p;
}

JOULE_EXPORT void* omp_calloc(std::size_t n, std::size_t size, Handle h) {
  return omp_aligned_calloc(0, n, size, h);
}

JOULE_EXPORT void* omp_realloc(void* p, std::size_t size, Handle h, Handle free_h) {
  return reallocate(p, size, h, free_h);
}

JOULE_EXPORT void omp_free(void* p, Handle) { deallocate(p); }

// gfortran's names (omp_lib: the handles are integer(omp_allocator_handle_kind) = 8 bytes).
JOULE_EXPORT Handle omp_init_allocator_(const std::uintptr_t* memspace, const int* ntraits,
                                        const Trait* traits) {
  return omp_init_allocator(*memspace, *ntraits, traits);
}
JOULE_EXPORT Handle omp_init_allocator_8_(const std::uintptr_t* memspace,
                                          const std::int64_t* ntraits, const Trait* traits) {
  return omp_init_allocator(*memspace, int(*ntraits), traits);
}
JOULE_EXPORT void omp_destroy_allocator_(const Handle* h) { omp_destroy_allocator(*h); }
JOULE_EXPORT void omp_set_default_allocator_(const Handle* h) { omp_set_default_allocator(*h); }
JOULE_EXPORT Handle omp_get_default_allocator_(void) { return default_allocator(); }

}  // extern "C"
