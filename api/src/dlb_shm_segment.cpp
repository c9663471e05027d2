// The DLB API's small shared segments (dlb_shm_segment.hpp).
#include "dlb_shm_segment.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <stdexcept>

namespace joule::dlb {
namespace {

constexpr std::uint32_t kReady = 0x4a424152;

int open_fd(const std::string& name, std::size_t size, bool create, bool& created) {
  created = create;
  int fd = create ? ::shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600) : -1;
  if (!create || (fd < 0 && errno == EEXIST)) {
    created = false;
    fd = ::shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
    if (fd < 0 && errno == ENOENT && !create) return -1;
  }
  if (fd < 0) throw std::runtime_error(name + ": " + std::strerror(errno));
  if (created && ::ftruncate(fd, off_t(size)) != 0) {
    ::close(fd);
    ::shm_unlink(name.c_str());
    throw std::runtime_error(name + ": cannot size the segment");
  }
  for (int i = 0; !created && i < 1000; ++i) {  // the creator sizes it at once
    struct stat st {};
    if (::fstat(fd, &st) == 0 && st.st_size >= off_t(size)) break;
    ::usleep(1000);
  }
  return fd;
}

void init_head(SegmentHead& head) {
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
  pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
  pthread_mutex_init(&head.mutex, &a);
  pthread_mutexattr_destroy(&a);
  head.ready.store(kReady, std::memory_order_release);
}

}  // namespace

std::string segment_name(const char* kind, const std::string& key) {
  const auto h = std::hash<std::string>{}(key);
  char buf[80];
  std::snprintf(buf, sizeof buf, "/joule-%s-%u-%016zx", kind, unsigned(::getuid()), size_t(h));
  return buf;
}

SegmentHead* map_segment(const std::string& name, std::size_t size, bool create) {
  bool created = false;
  const int fd = open_fd(name, size, create, created);
  if (fd < 0) return nullptr;
  void* mem = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (mem == MAP_FAILED) throw std::runtime_error(name + ": cannot map the segment");
  auto* head = static_cast<SegmentHead*>(mem);
  if (created) {
    std::memset(mem, 0, size);
    init_head(*head);
    return head;
  }
  for (int i = 0; i < 1000 && head->ready.load(std::memory_order_acquire) != kReady; ++i)
    ::usleep(1000);
  if (head->ready.load(std::memory_order_acquire) != kReady) {
    unmap_segment(head, size);
    throw std::runtime_error(name + ": segment never initialised");
  }
  return head;
}

void unmap_segment(SegmentHead* head, std::size_t size) {
  if (head) ::munmap(head, size);
}

void lock_segment(SegmentHead& head) {
  if (pthread_mutex_lock(&head.mutex) == EOWNERDEAD) pthread_mutex_consistent(&head.mutex);
}

void unlock_segment(SegmentHead& head) { pthread_mutex_unlock(&head.mutex); }

bool process_alive(pid_t p) {
  if (::kill(p, 0) != 0 && errno == ESRCH) return false;
  char path[64], buf[512];
  std::snprintf(path, sizeof path, "/proc/%d/stat", int(p));
  FILE* f = std::fopen(path, "r");
  if (!f) return true;  // no /proc: trust kill()
  const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  const char* paren = std::strrchr(buf, ')');  // the command may hold spaces
  return !(paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X'));
}

}  // namespace joule::dlb
