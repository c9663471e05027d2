// The kmp_* extension routines of the LLVM and Intel OpenMP runtimes
// (declared in their omp.h; docs/openmp-llvm-abi.md, "kmp_* routines").
// What joule can answer is answered: the memory routines, the stack size
// the workers have, blocktime and library mode as advice. Changing what
// joule cannot change once its workers run (their stack size), or what it
// has no equivalent of (serial library mode, affinity masks, KMP_*
// strings), stops the program naming the routine.
#include <atomic>
#include <cstdint>
#include <cstdlib>

#include "team.hpp"

namespace joule::omp {
namespace {

joule_omp_settings_t settings() {
  joule_omp_settings_t s{};
  s.struct_size = sizeof s;
  if (joule_omp_get_settings(&s) != JOULE_OK) unsupported("kmp_* (joule's settings are invalid)");
  return s;
}

// libomp's enum library_type: serial 1, turnaround 2, throughput 3.
constexpr int kSerial = 1, kTurnaround = 2, kThroughput = 3;
std::atomic<int> g_library{kThroughput};

// Blocktime: per thread, as in libomp; -1: not set, joule's spin answers.
thread_local int t_blocktime_ms = -1;

void set_stacksize(std::size_t bytes, const char* entry) {
  // The workers' stacks exist already; the same size is no change.
  if (bytes != settings().worker_stack) unsupported(entry);
}

void set_library(int mode) {
  if (mode == kSerial || (mode != kTurnaround && mode != kThroughput))
    unsupported("kmp_set_library (serial mode, or not a library mode)");
  g_library.store(mode, std::memory_order_relaxed);
}

}  // namespace
}  // namespace joule::omp

using namespace joule::omp;

extern "C" {

// Memory: the C library's, which kmp_free releases whichever made it.
JOULE_EXPORT void* kmp_malloc(std::size_t size) { return std::malloc(size); }
JOULE_EXPORT void* kmp_calloc(std::size_t n, std::size_t size) { return std::calloc(n, size); }
JOULE_EXPORT void* kmp_realloc(void* p, std::size_t size) { return std::realloc(p, size); }
JOULE_EXPORT void kmp_free(void* p) { std::free(p); }
JOULE_EXPORT void* kmp_aligned_malloc(std::size_t size, std::size_t align) {
  void* p = nullptr;
  if (align < sizeof(void*) || (align & (align - 1))) return nullptr;
  return posix_memalign(&p, align, size) == 0 ? p : nullptr;
}

JOULE_EXPORT std::size_t kmp_get_stacksize_s(void) { return settings().worker_stack; }
JOULE_EXPORT int kmp_get_stacksize(void) { return int(settings().worker_stack); }
JOULE_EXPORT void kmp_set_stacksize_s(std::size_t bytes) {
  set_stacksize(bytes, "kmp_set_stacksize_s (set OMP_STACKSIZE or JOULE_STACK_SIZE instead)");
}
JOULE_EXPORT void kmp_set_stacksize(int bytes) {
  set_stacksize(std::size_t(bytes),
                "kmp_set_stacksize (set OMP_STACKSIZE or JOULE_STACK_SIZE instead)");
}

// Advice: joule's idle threads spin JOULE_SPIN_US, then sleep.
JOULE_EXPORT void kmp_set_blocktime(int ms) {
  if (ms < 0) unsupported("kmp_set_blocktime (a negative time)");
  t_blocktime_ms = ms;
}
JOULE_EXPORT int kmp_get_blocktime(void) {
  if (t_blocktime_ms >= 0) return t_blocktime_ms;
  return (settings().spin_us + 999) / 1000;
}

// Advice too, but for serial mode (every region with one thread), which
// joule does not offer.
JOULE_EXPORT void kmp_set_library(int mode) { set_library(mode); }
JOULE_EXPORT void kmp_set_library_serial(void) { set_library(kSerial); }
JOULE_EXPORT void kmp_set_library_turnaround(void) { set_library(kTurnaround); }
JOULE_EXPORT void kmp_set_library_throughput(void) { set_library(kThroughput); }
JOULE_EXPORT int kmp_get_library(void) { return g_library.load(std::memory_order_relaxed); }

// joule prints no runtime warnings these would silence.
JOULE_EXPORT void kmp_set_warnings_on(void) {}
JOULE_EXPORT void kmp_set_warnings_off(void) {}

// Dispatch buffers are libomp's; joule's team has its own ring of constructs.
JOULE_EXPORT void kmp_set_disp_num_buffers(int n) {
  if (n <= 0) unsupported("kmp_set_disp_num_buffers (not a positive count)");
}

#define JOULE_KMP_UNSUPPORTED(name) \
  JOULE_EXPORT void name() { unsupported(#name); }
JOULE_KMP_UNSUPPORTED(kmp_set_defaults)
JOULE_KMP_UNSUPPORTED(kmp_get_cancellation_status)
JOULE_KMP_UNSUPPORTED(kmp_set_affinity)
JOULE_KMP_UNSUPPORTED(kmp_get_affinity)
JOULE_KMP_UNSUPPORTED(kmp_get_affinity_max_proc)
JOULE_KMP_UNSUPPORTED(kmp_create_affinity_mask)
JOULE_KMP_UNSUPPORTED(kmp_destroy_affinity_mask)
JOULE_KMP_UNSUPPORTED(kmp_set_affinity_mask_proc)
JOULE_KMP_UNSUPPORTED(kmp_unset_affinity_mask_proc)
JOULE_KMP_UNSUPPORTED(kmp_get_affinity_mask_proc)

}  // extern "C"
