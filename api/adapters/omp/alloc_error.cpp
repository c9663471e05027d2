// GOMP_alloc/GOMP_free (the allocate directive's fallback) and the error
// directive at run time (GOMP_error, GOMP_warning).
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "team.hpp"

extern "C" {

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
