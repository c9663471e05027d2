// The rest of the LLVM runtime ABI clang emits for host code: the allocate
// directive and clause (__kmpc_alloc & co. on allocators.cpp), allocator
// routines through the runtime, threadprivate without TLS, distribute
// parallel for's bounds, the error directive and the OpenMP 5.1 num_teams.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <thread>

#include "allocators.hpp"
#include "kmpc.hpp"

namespace joule::omp::kmp {
namespace {

// The calling thread's copy of each threadprivate variable, made from the
// original's bytes at its first use (the initial thread uses the original).
thread_local std::map<void*, void*> t_private;
const std::thread::id kInitialThread = std::this_thread::get_id();

void* thread_copy(void* data, std::size_t size) {
  if (std::this_thread::get_id() == kInitialThread) return data;
  void*& copy = t_private[data];
  if (!copy) {
    copy = std::malloc(size ? size : 1);
    if (!copy) unsupported("__kmpc_threadprivate_cached (out of memory)");
    std::memcpy(copy, data, size);
  }
  return copy;
}

}  // namespace
}  // namespace joule::omp::kmp

using namespace joule::omp;
using namespace joule::omp::kmp;

extern "C" {

// allocator_api.cpp's (omp_alloctrait_t arrays, passed through).
void* omp_calloc(std::size_t n, std::size_t size, Handle h);
Handle omp_init_allocator(std::uintptr_t memspace, int ntraits, const void* traits);
void omp_destroy_allocator(Handle h);
void omp_set_default_allocator(Handle h);

JOULE_EXPORT void* __kmpc_alloc(std::int32_t, std::size_t size, Handle h) {
  return allocate(0, size, h);
}
JOULE_EXPORT void* __kmpc_aligned_alloc(std::int32_t, std::size_t align, std::size_t size,
                                        Handle h) {
  return allocate(align, size, h);
}
JOULE_EXPORT void* __kmpc_calloc(std::int32_t, std::size_t n, std::size_t size, Handle h) {
  return omp_calloc(n, size, h);
}
JOULE_EXPORT void* __kmpc_realloc(std::int32_t, void* p, std::size_t size, Handle h, Handle fh) {
  return reallocate(p, size, h, fh);
}
JOULE_EXPORT void __kmpc_free(std::int32_t, void* p, Handle) { deallocate(p); }
JOULE_EXPORT Handle __kmpc_init_allocator(std::int32_t, std::uintptr_t ms, int n,
                                          const void* traits) {
  return omp_init_allocator(ms, n, traits);
}
JOULE_EXPORT void __kmpc_destroy_allocator(std::int32_t, Handle h) { omp_destroy_allocator(h); }
JOULE_EXPORT void __kmpc_set_default_allocator(std::int32_t, Handle h) {
  omp_set_default_allocator(h);
}
JOULE_EXPORT Handle __kmpc_get_default_allocator(std::int32_t) { return default_allocator(); }

// threadprivate where the compiler does not use TLS (-fno-openmp-use-tls).
JOULE_EXPORT void* __kmpc_threadprivate_cached(Ident*, std::int32_t, void* data, std::size_t size,
                                               void***) {
  return thread_copy(data, size);
}

// The error directive (OpenMP 5.1): severity 2 (fatal) stops the program.
JOULE_EXPORT void __kmpc_error(Ident* loc, int severity, const char* message) {
  std::fprintf(stderr, "libjoule-omp: %s: error directive%s%s\n",
               loc && loc->psource ? loc->psource : "?", message ? ": " : "",
               message ? message : "");
  if (severity == 2) std::exit(1);
}

// OMP_TARGET_OFFLOAD as libomp numbers it (0 disabled, 1 default, 2 mandatory).
JOULE_EXPORT int __kmpc_get_target_offload(void) {
  ensure_init();
  const int v = icv().target_offload;  // 0 default, 1 mandatory, 2 disabled
  return v == 2 ? 0 : v == 1 ? 2 : 1;
}

}  // extern "C"
