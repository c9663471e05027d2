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

JOULE_UNSUPPORTED(GOMP_target)
JOULE_UNSUPPORTED(GOMP_target_ext)
JOULE_UNSUPPORTED(GOMP_target_data)
JOULE_UNSUPPORTED(GOMP_target_data_ext)
JOULE_UNSUPPORTED(GOMP_target_end_data)
JOULE_UNSUPPORTED(GOMP_target_update)
JOULE_UNSUPPORTED(GOMP_target_update_ext)
JOULE_UNSUPPORTED(GOMP_target_enter_exit_data)
JOULE_UNSUPPORTED(GOMP_teams)
JOULE_UNSUPPORTED(GOMP_teams4)
JOULE_UNSUPPORTED(GOMP_teams_reg)
JOULE_UNSUPPORTED(GOMP_offload_register)
JOULE_UNSUPPORTED(GOMP_offload_register_ver)
JOULE_UNSUPPORTED(GOMP_offload_unregister)
JOULE_UNSUPPORTED(GOMP_offload_unregister_ver)

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
