// The barrier segment (dlb_barrier_shm.hpp). The counters are under a
// robust process-shared mutex, so a participant killed inside the short
// critical sections does not wedge the others; waiters sleep on a futex on
// the generation word and wake every kPollMs to look for dead participants.
#include "dlb_barrier_shm.hpp"

#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <stdexcept>

namespace joule::dlb {

struct BarrierSegment::Shared {
  static constexpr int kMax = 256;
  std::atomic<std::uint32_t> ready;
  std::uint32_t removed;  // the last participant left and unlinked the name
  pthread_mutex_t mutex;
  std::atomic<std::uint32_t> generation;  // barriers completed or broken
  std::uint32_t broken;                   // last generation ended by a death
  std::int32_t arrived;
  std::int32_t count;
  pid_t pids[kMax];
};

namespace {

constexpr std::uint32_t kReady = 0x4a424152;

std::string segment_name(const std::string& table, const std::string& name) {
  const auto h = std::hash<std::string>{}(table + '\n' + name);
  char buf[64];
  std::snprintf(buf, sizeof buf, "/joule-bar-%u-%016zx", unsigned(::getuid()), size_t(h));
  return buf;
}

// A zombie counts as dead: its parent may be the very process waiting in
// the barrier, which would only reap it afterwards.
bool alive(pid_t p) {
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

void futex_wake(std::atomic<std::uint32_t>* w) {
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(w), FUTEX_WAKE, INT_MAX, nullptr, nullptr,
            0);
}

void futex_wait(std::atomic<std::uint32_t>* w, std::uint32_t seen, int ms) {
  timespec ts{0, long(ms) * 1000000L};
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(w), FUTEX_WAIT, seen, &ts, nullptr, 0);
}

}  // namespace

BarrierSegment::BarrierSegment(const std::string& table, const std::string& name)
    : shm_name_(segment_name(table, name)) {
  map();
}

BarrierSegment::~BarrierSegment() {
  if (attached_) {
    detach();
  } else if (shared_) {  // opened but never (or no longer) attached: maybe the last user
    lock();
    drop_dead();
    if (shared_->count == 0 && !shared_->removed) {
      shared_->removed = 1;
      ::shm_unlink(shm_name_.c_str());
    }
    unlock();
  }
  unmap();
}

void BarrierSegment::map() {
  bool created = true;
  int fd = ::shm_open(shm_name_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0 && errno == EEXIST) {
    created = false;
    fd = ::shm_open(shm_name_.c_str(), O_RDWR | O_CLOEXEC, 0);
  }
  if (fd < 0) throw std::runtime_error(shm_name_ + ": " + std::strerror(errno));
  if (created && ::ftruncate(fd, sizeof(Shared)) != 0) {
    ::close(fd);
    ::shm_unlink(shm_name_.c_str());
    throw std::runtime_error(shm_name_ + ": cannot size the barrier segment");
  }
  for (int i = 0; !created && i < 1000; ++i) {  // the creator sizes it at once
    struct stat st {};
    if (::fstat(fd, &st) == 0 && st.st_size >= off_t(sizeof(Shared))) break;
    ::usleep(1000);
  }
  void* mem = ::mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (mem == MAP_FAILED) throw std::runtime_error(shm_name_ + ": cannot map the barrier segment");
  shared_ = static_cast<Shared*>(mem);
  if (created) {
    std::memset(mem, 0, sizeof(Shared));
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(&shared_->mutex, &a);
    pthread_mutexattr_destroy(&a);
    shared_->ready.store(kReady, std::memory_order_release);
    return;
  }
  for (int i = 0; i < 1000 && shared_->ready.load(std::memory_order_acquire) != kReady; ++i)
    ::usleep(1000);
  if (shared_->ready.load(std::memory_order_acquire) != kReady) {
    unmap();
    throw std::runtime_error(shm_name_ + ": barrier segment never initialised");
  }
}

void BarrierSegment::unmap() {
  if (shared_) ::munmap(shared_, sizeof(Shared));
  shared_ = nullptr;
}

void BarrierSegment::lock() {
  if (pthread_mutex_lock(&shared_->mutex) == EOWNERDEAD) pthread_mutex_consistent(&shared_->mutex);
}
void BarrierSegment::unlock() { pthread_mutex_unlock(&shared_->mutex); }

int BarrierSegment::drop_dead() {
  int dropped = 0;
  for (int i = 0; i < shared_->count;) {
    if (alive(shared_->pids[i])) {
      ++i;
      continue;
    }
    shared_->pids[i] = shared_->pids[--shared_->count];
    ++dropped;
  }
  // A barrier under way cannot complete as its members began it (the dead
  // one may have arrived already): it fails for those waiting in it.
  if (dropped > 0 && shared_->arrived > 0) {
    shared_->arrived = 0;
    shared_->broken = shared_->generation.load() + 1;
    shared_->generation.fetch_add(1);
    futex_wake(&shared_->generation);
  }
  return dropped;
}

bool BarrierSegment::attach() {
  if (attached_) return false;
  for (;;) {
    lock();
    if (!shared_->removed) break;
    unlock();  // the last one left while we opened it: take a fresh segment
    unmap();
    map();
  }
  drop_dead();
  const bool room = shared_->count < Shared::kMax;
  if (room) shared_->pids[shared_->count++] = ::getpid();
  unlock();
  if (!room) throw std::runtime_error(shm_name_ + ": too many processes in the barrier");
  attached_ = true;
  return true;
}

bool BarrierSegment::detach() {
  if (!attached_) return false;
  attached_ = false;
  lock();
  for (int i = 0; i < shared_->count; ++i)
    if (shared_->pids[i] == ::getpid()) shared_->pids[i] = shared_->pids[--shared_->count];
  drop_dead();
  if (shared_->arrived > 0 && shared_->arrived >= shared_->count) {  // we were the last awaited
    shared_->arrived = 0;
    shared_->generation.fetch_add(1);
    futex_wake(&shared_->generation);
  }
  if (shared_->count == 0) {
    shared_->removed = 1;
    ::shm_unlink(shm_name_.c_str());
  }
  unlock();
  return true;
}

BarrierSegment::Result BarrierSegment::wait() {
  if (!attached_) return Result::NotAttached;
  lock();
  const std::uint32_t mine = shared_->generation.load();
  if (++shared_->arrived >= shared_->count) {
    shared_->arrived = 0;
    shared_->generation.fetch_add(1);
    unlock();
    futex_wake(&shared_->generation);
    return Result::Done;
  }
  unlock();
  for (;;) {
    futex_wait(&shared_->generation, mine, kPollMs);
    if (shared_->generation.load() != mine) break;
    lock();
    if (shared_->generation.load() == mine) drop_dead();  // may end it as broken
    unlock();
  }
  lock();
  const bool broken = shared_->broken == mine + 1;
  unlock();
  return broken ? Result::Broken : Result::Done;
}

}  // namespace joule::dlb
