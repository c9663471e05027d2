// DLB_SetObserverRole (DLB API reference, dlb.h): an observer thread is not
// one of the process's workers. Its LeWI calls are refused (run_as) and its
// CPU time is kept out of TALP's useful time: the monitoring regions
// subtract observer_cpu_ns(), the CPU time observer threads spent as
// observers, read from each live observer's thread CPU clock
// (pthread_getcpuclockid) plus what ended spells banked.
#include <pthread.h>
#include <time.h>

#include <cstdint>
#include <mutex>
#include <set>

#include "dlb_internal.hpp"

namespace joule::dlb {
namespace {

std::int64_t thread_clock_ns(clockid_t clock) {
  timespec ts{};
  ::clock_gettime(clock, &ts);
  return std::int64_t(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

struct ThreadRole;
std::mutex g_mutex;
std::set<const ThreadRole*> g_active;  // observers now
std::int64_t g_banked_ns = 0;          // CPU time of spells that ended

struct ThreadRole {
  bool observer = false;
  clockid_t clock{};
  std::int64_t start = 0;

  void begin() {
    std::lock_guard guard(g_mutex);
    pthread_getcpuclockid(pthread_self(), &clock);
    start = thread_clock_ns(clock);
    g_active.insert(this);
    observer = true;
  }
  void end() {
    std::lock_guard guard(g_mutex);
    g_banked_ns += thread_clock_ns(clock) - start;
    g_active.erase(this);
    observer = false;
  }
  // A thread that exits as an observer banks its spell while its clock
  // still exists.
  ~ThreadRole() {
    if (observer) end();
  }
};

thread_local ThreadRole t_role;

}  // namespace

bool thread_is_observer() { return t_role.observer; }

std::int64_t observer_cpu_ns() {
  std::lock_guard guard(g_mutex);
  std::int64_t total = g_banked_ns;
  for (const ThreadRole* r : g_active) total += thread_clock_ns(r->clock) - r->start;
  return total;
}

}  // namespace joule::dlb

extern "C" int DLB_SetObserverRole(bool thread_is_observer) {
  auto& role = joule::dlb::t_role;
  if (thread_is_observer && !role.observer) role.begin();
  if (!thread_is_observer && role.observer) role.end();
  return DLB_SUCCESS;
}
