// Entry points GCC 12 may emit that joule does not implement: each one
// aborts with its name, so that a program using them never runs silently
// wrong (docs/openmp.md lists them). GOMP_alloc/free and GOMP_error are real.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "team.hpp"

using joule::omp::unsupported;

extern "C" {

#define JOULE_UNSUPPORTED(name) \
  JOULE_EXPORT void name(void) { unsupported(#name); }

JOULE_UNSUPPORTED(GOMP_doacross_post)
JOULE_UNSUPPORTED(GOMP_doacross_wait)
JOULE_UNSUPPORTED(GOMP_doacross_ull_post)
JOULE_UNSUPPORTED(GOMP_doacross_ull_wait)
JOULE_UNSUPPORTED(GOMP_loop_doacross_start)
JOULE_UNSUPPORTED(GOMP_loop_doacross_static_start)
JOULE_UNSUPPORTED(GOMP_loop_doacross_dynamic_start)
JOULE_UNSUPPORTED(GOMP_loop_doacross_guided_start)
JOULE_UNSUPPORTED(GOMP_loop_doacross_runtime_start)
JOULE_UNSUPPORTED(GOMP_loop_ull_doacross_start)
JOULE_UNSUPPORTED(GOMP_loop_ull_doacross_static_start)
JOULE_UNSUPPORTED(GOMP_loop_ull_doacross_dynamic_start)
JOULE_UNSUPPORTED(GOMP_loop_ull_doacross_guided_start)
JOULE_UNSUPPORTED(GOMP_loop_ull_doacross_runtime_start)
JOULE_UNSUPPORTED(GOMP_parallel_loop_static_start)
JOULE_UNSUPPORTED(GOMP_parallel_loop_dynamic_start)
JOULE_UNSUPPORTED(GOMP_parallel_loop_guided_start)
JOULE_UNSUPPORTED(GOMP_parallel_loop_runtime_start)
JOULE_UNSUPPORTED(GOMP_parallel_sections_start)

JOULE_EXPORT void* GOMP_alloc(std::size_t alignment, std::size_t size, std::uintptr_t) {
  if (alignment < sizeof(void*)) alignment = sizeof(void*);
  return std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
}

JOULE_EXPORT void GOMP_free(void* p, std::uintptr_t) { std::free(p); }

// The error directive at run time: print, and for severity(fatal) stop.
// A length of SIZE_MAX means a NUL-terminated message.
static int message_length(const char* msg, std::size_t len) {
  if (!msg) return 0;
  return int(len == SIZE_MAX ? std::strlen(msg) : len);
}

JOULE_EXPORT void GOMP_warning(const char* msg, std::size_t len) {
  std::fprintf(stderr, "libjoule-omp: warning: %.*s\n", message_length(msg, len), msg);
}

JOULE_EXPORT void GOMP_error(const char* msg, std::size_t len) {
  std::fprintf(stderr, "libjoule-omp: error: %.*s\n", message_length(msg, len), msg);
  std::exit(EXIT_FAILURE);
}

}  // extern "C"
