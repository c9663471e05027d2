// The barrier segment (dlb_barrier_shm.hpp). The counters are under a
// robust process-shared mutex, so a participant killed inside the short
// critical sections does not wedge the others; waiters sleep on a futex on
// the generation word and wake every kPollMs to look for dead participants.
#include "dlb_barrier_shm.hpp"
#include "dlb_shm_segment.hpp"

#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdint>
#include <ctime>

namespace joule::dlb {

struct BarrierSegment::Shared {
  static constexpr int kMax = 256;
  SegmentHead head;
  std::atomic<std::uint32_t> generation;  // barriers completed or broken
  std::uint32_t broken;                   // last generation ended by a death
  std::int32_t arrived;
  std::int32_t count;
  pid_t pids[kMax];
};

namespace {

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
    : shm_name_(segment_name("bar", table + '\n' + name)) {
  map();
}

BarrierSegment::~BarrierSegment() {
  if (attached_) {
    detach();
  } else if (shared_) {  // opened but never (or no longer) attached: maybe the last user
    lock();
    drop_dead();
    if (shared_->count == 0 && !shared_->head.removed) {
      shared_->head.removed = 1;
      ::shm_unlink(shm_name_.c_str());
    }
    unlock();
  }
  unmap();
}

void BarrierSegment::map() {
  shared_ = reinterpret_cast<Shared*>(map_segment(shm_name_, sizeof(Shared), true));
}

void BarrierSegment::unmap() {
  if (shared_) unmap_segment(&shared_->head, sizeof(Shared));
  shared_ = nullptr;
}

void BarrierSegment::lock() { lock_segment(shared_->head); }
void BarrierSegment::unlock() { unlock_segment(shared_->head); }
int BarrierSegment::drop_dead() {
  int dropped = 0;
  for (int i = 0; i < shared_->count;) {
    if (process_alive(shared_->pids[i])) {
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
    if (!shared_->head.removed) break;
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
    shared_->head.removed = 1;
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
