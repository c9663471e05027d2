// See polite_wait.hpp.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include "polite_wait.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>

#include "joule/joule.h"

namespace joule::mpi {
namespace {

int self_pid() {
  static const int pid = int(::getpid());
  return pid;
}

bool held_by_me(const joule_cpu_info_t& i) {
  if (i.state == JOULE_CPU_BUSY) return i.owner_pid == self_pid();
  if (i.state == JOULE_CPU_BORROWED || i.state == JOULE_CPU_CLAIMED)
    return i.guest_pid == self_pid();
  return false;
}

}  // namespace

int given_up_cpu() {
  const int cpu = ::sched_getcpu();
  joule_cpu_info_t i{};
  if (cpu < 0 || joule_get_cpu_info(cpu, &i) != JOULE_OK) return -1;
  if (i.state == JOULE_CPU_DISABLED || held_by_me(i)) return -1;
  return cpu;
}

bool other_runs_on(int cpu) {
  joule_cpu_info_t i{};
  if (joule_get_cpu_info(cpu, &i) != JOULE_OK) return false;
  if (i.state == JOULE_CPU_BUSY) return i.owner_pid != self_pid();
  if (i.state == JOULE_CPU_BORROWED || i.state == JOULE_CPU_CLAIMED)
    return i.guest_pid != self_pid();
  return false;  // idle (nobody runs there) or disabled
}

void Backoff::pause() {
  if (n_ < kYields) {
    ++n_;
    ::sched_yield();
    return;
  }
  const long us = std::min(5L << std::min(n_ - kYields, 6), kMaxSleepUs);
  if (n_ < kYields + 6) ++n_;
  timespec ts{0, us * 1000};
  ::nanosleep(&ts, nullptr);
}

}  // namespace joule::mpi
