// Registration, the registry lock and the cleaning of dead processes.
#include "process_registry.hpp"

#include <sys/mman.h>
#include <unistd.h>
#include <chrono>
#include <cstring>
#include <thread>

#include "cpu_table.hpp"
#include "os_support.hpp"

namespace joule::lending {

using Kind = TableError::Kind;

// The lock holds the holder's pid so that a holder that died is noticed and
// the lock taken over.
void ProcessRegistry::lock() {
  const std::uint32_t me = std::uint32_t(::getpid());
  auto& l = table_.segment()->header.lock;
  const std::uint64_t deadline = monotonic_ns() + 5'000'000'000ull;
  for (unsigned i = 0;; ++i) {
    std::uint32_t holder = 0;
    if (l.compare_exchange_weak(holder, me, std::memory_order_acquire)) return;
    if (holder != 0 && holder != me && !pid_exists(pid_t(holder)) &&
        l.compare_exchange_strong(holder, me, std::memory_order_acquire))
      return;
    if (monotonic_ns() > deadline)
      throw TableError(Kind::Busy, "joule: the registry of CPU table " + table_.name() +
                                       " has been locked by pid " + std::to_string(holder) +
                                       " for 5 s");
    if (i < 64)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

bool ProcessRegistry::try_lock() {
  std::uint32_t holder = 0;
  auto& l = table_.segment()->header.lock;
  const std::uint32_t me = std::uint32_t(::getpid());
  if (l.compare_exchange_strong(holder, me, std::memory_order_acquire)) return true;
  return holder != me && !pid_exists(pid_t(holder)) &&
         l.compare_exchange_strong(holder, me, std::memory_order_acquire);
}

void ProcessRegistry::unlock() noexcept {
  table_.segment()->header.lock.store(0, std::memory_order_release);
}

int ProcessRegistry::register_process(pid_t pid, int mode) {
  ShmSegment* seg = table_.segment();
  lock();
  ShmHeader& h = seg->header;
  if (h.closing.load(std::memory_order_acquire)) {
    unlock();
    throw TableError(Kind::Busy, "joule: CPU table " + table_.name() + " is being removed");
  }
  int slot = -1;
  const int used = int(h.procs_used.load());
  // A launcher may have registered this very process before it started
  // (DLB_DROM_PreInit): it takes that slot over, with the CPUs it owns.
  for (int i = 0; i < used && slot < 0; ++i)
    if (pid_t(seg->procs[i].pid.load()) == pid && process_alive(pid, seg->procs[i].start_time))
      slot = i;
  for (int i = 0; i < used && slot < 0; ++i) {
    const pid_t p = pid_t(seg->procs[i].pid.load());
    if (p == 0) slot = i;
  }
  if (slot < 0 && used < kMaxProcs) {
    slot = used;
    h.procs_used.store(std::uint32_t(used + 1));
  }
  if (slot < 0) {
    unlock();
    throw TableError(Kind::Full, "joule: CPU table " + table_.name() +
                                     " has no room for another process (" +
                                     std::to_string(kMaxProcs) + " registered)");
  }
  ShmProc& p = seg->procs[slot];
  p.mode = std::uint32_t(mode);
  p.start_time = process_start_time(pid);
  std::memset(p.comm, 0, sizeof p.comm);
  std::strncpy(p.comm, process_comm(pid).c_str(), sizeof p.comm - 1);
  p.drom_ack.store(p.drom_seq.load());
  p.drom_error.store(0);
  p.home_cpu.store(0);
  p.revoked.store(0);
  p.pid.store(std::uint32_t(pid), std::memory_order_release);
  h.epoch.fetch_add(1);
  unlock();
  return slot;
}

bool ProcessRegistry::unregister_process(int slot) {
  if (slot < 0 || slot >= kMaxProcs) return false;
  ShmSegment* seg = table_.segment();
  ShmProc& p = seg->procs[slot];
  const pid_t pid = pid_t(p.pid.load());
  if (pid) table_.release_all_of(pid);
  lock();
  p.pid.store(0, std::memory_order_release);
  seg->header.epoch.fetch_add(1);
  bool last = true;
  const int used = int(seg->header.procs_used.load());
  for (int i = 0; i < used && last; ++i) {
    const ShmProc& q = seg->procs[i];
    const pid_t qp = pid_t(q.pid.load());
    if (qp && process_alive(qp, q.start_time)) last = false;
  }
  bool removed = false;
  if (last && table_.shared()) {
    seg->header.closing.store(1, std::memory_order_release);
    removed = ::shm_unlink(table_.name().c_str()) == 0;
  }
  unlock();
  return removed;
}

std::vector<ProcInfo> ProcessRegistry::processes() const {
  std::vector<ProcInfo> out;
  const ShmSegment* seg = table_.segment();
  const int used = int(seg->header.procs_used.load());
  for (int i = 0; i < used; ++i) {
    const ShmProc& p = seg->procs[i];
    const pid_t pid = pid_t(p.pid.load(std::memory_order_acquire));
    if (!pid) continue;
    out.push_back({pid, int(p.mode), std::string(p.comm, strnlen(p.comm, sizeof p.comm)),
                   process_alive(pid, p.start_time), p.revoked.load()});
  }
  return out;
}

int ProcessRegistry::find_slot(pid_t pid) const {
  const ShmSegment* seg = table_.segment();
  const int used = int(seg->header.procs_used.load());
  for (int i = 0; i < used; ++i)
    if (pid_t(seg->procs[i].pid.load(std::memory_order_acquire)) == pid) return i;
  return -1;
}

int ProcessRegistry::reap_dead() {
  if (!try_lock()) return 0;
  ShmSegment* seg = table_.segment();
  int dead = 0;
  const int used = int(seg->header.procs_used.load());
  for (int i = 0; i < used; ++i) {
    ShmProc& p = seg->procs[i];
    const pid_t pid = pid_t(p.pid.load(std::memory_order_acquire));
    if (!pid || process_alive(pid, p.start_time)) continue;
    table_.release_all_of(pid);
    p.pid.store(0, std::memory_order_release);
    ++dead;
  }
  // Words naming a pid that no longer exists at all (never registered, or
  // its slot already freed): clean them too.
  for (int cpu = 0; cpu < table_.ncpus(); ++cpu) {
    const CpuWord w = table_.load(cpu);
    if (w.owner && !pid_exists(w.owner)) table_.release_all_of(w.owner);
    if (w.guest && !pid_exists(w.guest)) table_.release_all_of(w.guest);
  }
  if (dead) seg->header.epoch.fetch_add(1);
  for (int cpu = 0; cpu < table_.ncpus(); ++cpu) table_.sync_idle(cpu);
  unlock();
  return dead;
}

void ProcessRegistry::set_home_cpu(int slot, int cpu) noexcept {
  if (slot < 0 || slot >= kMaxProcs) return;
  const bool ok = cpu >= 0 && cpu < table_.ncpus();
  table_.segment()->procs[slot].home_cpu.store(ok ? std::uint32_t(cpu + 1) : 0);
}

void ProcessRegistry::note_revoked(int slot) noexcept {
  if (slot >= 0 && slot < kMaxProcs) table_.segment()->procs[slot].revoked.fetch_add(1);
}

}  // namespace joule::lending
