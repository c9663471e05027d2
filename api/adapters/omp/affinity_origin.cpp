// The process's CPU mask before any library bound a thread. A program linked
// with libgomp still loads it under LD_PRELOAD, and the dynamic linker runs
// libgomp's constructor before ours (ours depends on more libraries): with
// OMP_PROC_BIND or OMP_PLACES set it binds the main thread to its first
// place, and a mask read afterwards has one place. So libjoule-omp defines
// the two affinity calls; the first call made before our constructor, or any
// made by libgomp, records the calling thread's mask before forwarding it.
// The data here is plain and zero-initialised: these functions run before
// any constructor of this library.
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#include "affinity.hpp"
#include "joule/joule.h"

namespace joule::omp {
namespace {

cpu_set_t g_original;            // valid once g_recorded is 2
std::atomic<int> g_recorded{0};  // 0: not yet, 1: being written, 2: recorded
cpu_set_t g_libgomp_set;         // the main thread's mask as libgomp set it
std::atomic<bool> g_libgomp_bound{false};
std::atomic<bool> g_loaded{false};   // our constructor ran
std::atomic<bool> g_settled{false};  // joule started: nothing more to note

void record_mask() {
  int expected = 0;
  if (!g_recorded.compare_exchange_strong(expected, 1)) return;
  if (sched_getaffinity(0, sizeof g_original, &g_original) != 0) CPU_ZERO(&g_original);
  g_recorded.store(2, std::memory_order_release);
}

// Made by libgomp: the caller's object says so.
bool from_libgomp(void* return_address) {
  Dl_info info;
  return dladdr(return_address, &info) != 0 && info.dli_fname &&
         std::strstr(info.dli_fname, "libgomp") != nullptr;
}

// Before a bind is forwarded: record the mask, and what libgomp gave the
// main thread (the only thread it binds before it starts a team).
void note_bind(bool on_main_thread, std::size_t size, const cpu_set_t* set, void* caller) {
  if (g_settled.load(std::memory_order_acquire)) return;
  const bool early = !g_loaded.load(std::memory_order_acquire);
  if (!early && !from_libgomp(caller)) return;
  record_mask();
  if (!on_main_thread || !set || g_libgomp_bound.exchange(true)) return;
  CPU_ZERO(&g_libgomp_set);
  std::memcpy(&g_libgomp_set, set, std::min(size, sizeof g_libgomp_set));
}

template <class Fn>
Fn next_symbol(std::atomic<Fn>& slot, const char* name) {
  Fn f = slot.load(std::memory_order_acquire);
  if (!f) {
    f = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
    slot.store(f, std::memory_order_release);
  }
  return f;
}

using SchedSet = int (*)(pid_t, std::size_t, const cpu_set_t*);
using PthreadSet = int (*)(pthread_t, std::size_t, const cpu_set_t*);
std::atomic<SchedSet> g_sched_set{nullptr};
std::atomic<PthreadSet> g_pthread_set{nullptr};

bool is_main_thread(pid_t tid) { return tid == getpid(); }

[[gnu::constructor]] void on_load() {
  record_mask();
  g_loaded.store(true, std::memory_order_release);
}

}  // namespace

std::vector<int> original_cpus() {
  record_mask();
  while (g_recorded.load(std::memory_order_acquire) != 2) sched_yield();
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &g_original)) cpus.push_back(c);
  return cpus;
}

void undo_libgomp_binding() {
  g_settled.store(true, std::memory_order_release);
  if (!g_libgomp_bound.load(std::memory_order_acquire)) return;
  cpu_set_t now;
  if (sched_getaffinity(getpid(), sizeof now, &now) != 0 || !CPU_EQUAL(&now, &g_libgomp_set))
    return;  // the program has bound it since: its choice
  if (SchedSet f = next_symbol(g_sched_set, "sched_setaffinity"))
    f(getpid(), sizeof g_original, &g_original);
}

}  // namespace joule::omp

using namespace joule::omp;

extern "C" {

JOULE_EXPORT int sched_setaffinity(pid_t pid, std::size_t size, const cpu_set_t* set) noexcept {
  const pid_t tid = pid ? pid : pid_t(syscall(SYS_gettid));
  note_bind(is_main_thread(tid), size, set, __builtin_return_address(0));
  SchedSet f = next_symbol(g_sched_set, "sched_setaffinity");
  if (!f) return errno = ENOSYS, -1;
  return f(pid, size, set);
}

JOULE_EXPORT int pthread_setaffinity_np(pthread_t thread, std::size_t size,
                                        const cpu_set_t* set) noexcept {
  const bool self = pthread_equal(thread, pthread_self()) != 0;
  note_bind(self && is_main_thread(pid_t(syscall(SYS_gettid))), size, set,
            __builtin_return_address(0));
  PthreadSet f = next_symbol(g_pthread_set, "pthread_setaffinity_np");
  if (!f) return ENOSYS;
  return f(thread, size, set);
}

}  // extern "C"
