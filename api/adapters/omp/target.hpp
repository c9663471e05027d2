// Target constructs and device routines on the host: joule drives no
// device, so the host is the only one (docs/openmp-entry-points.md, "Target regions on
// the host"). Flag values are those of gcc's include/gomp-constants.h, as
// GCC 12 passes them (gcc -fopenmp -fdump-tree-ompexp shows the calls).
#pragma once

#include <cstddef>

#include "joule/joule.h"

namespace joule::omp {

constexpr unsigned kTargetNowait = 1u << 0;  // GOMP_TARGET_FLAG_NOWAIT
constexpr unsigned kTaskDepend = 1u << 3;    // GOMP_TASK_FLAG_DEPEND, for GOMP_task

// GCC's device argument for if(false): run on the host, whatever
// OMP_TARGET_OFFLOAD says (GOMP_DEVICE_HOST_FALLBACK).
constexpr int kHostFallback = -2;

// OMP_TARGET_OFFLOAD=mandatory: stops the program, naming the construct
// (no device can ever run it), unless `device` asks for the host.
void check_offload(const char* construct, int device);
// The host's device numbers: omp_initial_device (-1) and
// omp_get_initial_device() (= omp_get_num_devices() = 0, as in libgomp).
bool is_host_device(int device_num);
// A device memory routine's device: the host's, else false; under
// OMP_TARGET_OFFLOAD=mandatory another number stops the program.
bool usable_device(int device_num, const char* routine);

}  // namespace joule::omp

// Entry points the target code reuses (task.cpp, task_depend.cpp).
extern "C" {
JOULE_EXPORT void GOMP_task(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*),
                            long arg_size, long arg_align, bool if_clause, unsigned flags,
                            void** depend, int priority, void* detach);
JOULE_EXPORT void GOMP_taskwait_depend(void** depend);
}
