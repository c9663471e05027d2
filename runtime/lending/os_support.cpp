#include "os_support.hpp"

#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "process_identity.hpp"

namespace joule::lending {
namespace {

// Reads a small /proc file into buf; returns the length or -1.
long read_small(const char* path, char* buf, std::size_t size) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  const ssize_t n = ::read(fd, buf, size - 1);
  ::close(fd);
  if (n < 0) return -1;
  buf[n] = '\0';
  return long(n);
}

}  // namespace

std::uint64_t process_start_time(pid_t pid) { return core::process_start_time(int(os_pid(pid))); }

bool pid_exists(pid_t pid) {
  pid = os_pid(pid);
  if (pid <= 0) return false;
  return ::kill(pid, 0) == 0 || errno == EPERM;
}

bool process_alive(pid_t pid, std::uint64_t start_time) {
  if (!pid_exists(pid)) return false;
  if (start_time == 0) return true;
  const std::uint64_t now = process_start_time(pid);
  return now == 0 || now == start_time;
}

std::string process_comm(pid_t pid) {
  pid = os_pid(pid);
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/comm", int(pid));
  char buf[64];
  if (read_small(path, buf, sizeof buf) <= 0) return "";
  std::string s(buf);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

void futex_wait(std::atomic<std::uint32_t>* word, std::uint32_t expected, unsigned timeout_us) {
  if (timeout_us == 0) return;
  timespec ts{time_t(timeout_us / 1000000), long(timeout_us % 1000000) * 1000};
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), FUTEX_WAIT, expected, &ts, nullptr,
            0);
}

void futex_wake(std::atomic<std::uint32_t>* word, int n) {
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), FUTEX_WAKE, n, nullptr, nullptr, 0);
}

std::uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::uint64_t(ts.tv_sec) * 1000000000ull + std::uint64_t(ts.tv_nsec);
}

int current_cpu() { return ::sched_getcpu(); }

}  // namespace joule::lending
