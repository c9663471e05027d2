// The data constructs on the host (OpenMP 5.2 §13.5-13.9): the host is the
// only device, so every map is the identity and nothing is copied. update
// and enter/exit data are still target tasks whose dependences a program
// can see: with depend, nowait makes a task that does nothing but keeps
// the order; without nowait the thread waits for the dependences first.
// Offload images: with no device plugin, libgomp accepts and ignores them.
#include <cstddef>

#include "target.hpp"

using namespace joule::omp;

namespace {

void nothing(void*) {}

void order_only(unsigned flags, void** depend) {
  if (!depend) return;
  if (flags & kTargetNowait)
    GOMP_task(nothing, nullptr, nullptr, 0, 1, true, kTaskDepend, depend, 0, nullptr);
  else
    GOMP_taskwait_depend(depend);
}

}  // namespace

extern "C" {

JOULE_EXPORT void GOMP_target_data_ext(int device, std::size_t, void**, std::size_t*,
                                       unsigned short*) {
  check_offload("target data (GOMP_target_data_ext)", device);
}

JOULE_EXPORT void GOMP_target_data(int device, const void*, std::size_t, void**, std::size_t*,
                                   unsigned char*) {
  check_offload("target data (GOMP_target_data)", device);
}

JOULE_EXPORT void GOMP_target_end_data(void) {}

JOULE_EXPORT void GOMP_target_update_ext(int device, std::size_t, void**, std::size_t*,
                                         unsigned short*, unsigned flags, void** depend) {
  check_offload("target update (GOMP_target_update_ext)", device);
  order_only(flags, depend);
}

JOULE_EXPORT void GOMP_target_update(int device, const void*, std::size_t, void**, std::size_t*,
                                     unsigned char*) {
  check_offload("target update (GOMP_target_update)", device);
}

// flags also carry GOMP_TARGET_FLAG_EXIT_DATA: enter or exit, the same here.
JOULE_EXPORT void GOMP_target_enter_exit_data(int device, std::size_t, void**, std::size_t*,
                                              unsigned short*, unsigned flags, void** depend) {
  check_offload("target enter/exit data (GOMP_target_enter_exit_data)", device);
  order_only(flags, depend);
}

JOULE_EXPORT void GOMP_offload_register_ver(unsigned, const void*, int, const void*) {}
JOULE_EXPORT void GOMP_offload_register(const void*, int, const void*) {}
JOULE_EXPORT void GOMP_offload_unregister_ver(unsigned, const void*, int, const void*) {}
JOULE_EXPORT void GOMP_offload_unregister(const void*, int, const void*) {}

}  // extern "C"
