#include "process_identity.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace joule::core {

unsigned long long process_start_time(int pid) {
  if (pid <= 0) return 0;
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", pid);
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[1024];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf - 1)) < 0 && errno == EINTR) {
  }
  ::close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  // The command (field 2) may hold spaces and parentheses: count fields
  // after its last ')'. The start time is field 22.
  const char* p = std::strrchr(buf, ')');
  if (!p) return 0;
  for (int field = 2; field < 22 && *p; ++p)
    if (*p == ' ') ++field;
  return std::strtoull(p, nullptr, 10);
}

bool process_alive(int pid, unsigned long long start_time) {
  if (pid <= 0) return false;
  if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
  const unsigned long long now = process_start_time(pid);
  return now != 0 && (start_time == 0 || now == start_time);
}

}  // namespace joule::core
