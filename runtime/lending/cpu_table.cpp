// Transitions, the process registry, dead-process cleaning and DROM requests.
#include "cpu_table.hpp"

#include <sys/mman.h>
#include <unistd.h>
#include <climits>
#include <cstring>
#include <thread>

#include "os_support.hpp"
#include "trace_api.hpp"

namespace joule::lending {

using Kind = TableError::Kind;

namespace {

// Every lend / borrow / reclaim / return of this process passes here, so the
// trace sees them all (value cpu + 1). Changes made on behalf of another
// process (cleaning a dead one) are not ours to trace.
void trace_transition(int cpu, CpuOp op, pid_t actor) noexcept {
  namespace tr = core::trace;
  tr::Event e;
  switch (op) {
    case CpuOp::Lend:
      e = tr::Event::kEvCpuLend;
      break;
    case CpuOp::Borrow:
      e = tr::Event::kEvCpuBorrow;
      break;
    case CpuOp::Reclaim:
      e = tr::Event::kEvCpuReclaim;
      break;
    case CpuOp::Return:
      e = tr::Event::kEvCpuReturn;
      break;
    default:
      return;
  }
  if (actor == ::getpid()) tr::emit_event(e, std::uint64_t(cpu) + 1);
}

}  // namespace

CpuWord CpuTable::load(int cpu) const noexcept {
  if (cpu < 0 || cpu >= ncpus_) return {};
  return CpuWord::unpack(seg_->cpus[cpu].word.load(std::memory_order_acquire));
}

CpuTable::Result CpuTable::apply(int cpu, CpuOp op, pid_t actor) noexcept {
  if (cpu < 0 || cpu >= ncpus_) return {Outcome::Illegal, {}, {}};
  auto& word = seg_->cpus[cpu].word;
  std::uint64_t raw = word.load(std::memory_order_acquire);
  for (;;) {
    const CpuWord before = CpuWord::unpack(raw);
    const Transition t = lending::apply(before, op, actor);
    if (t.outcome == Outcome::Illegal || t.outcome == Outcome::NoChange)
      return {t.outcome, before, before};
    if (word.compare_exchange_weak(raw, t.next.pack(), std::memory_order_acq_rel,
                                   std::memory_order_acquire)) {
      if ((before.state == CpuState::Idle) != (t.next.state == CpuState::Idle)) sync_idle(cpu);
      notify(cpu);
      if (core::trace::enabled()) trace_transition(cpu, op, actor);
      return {t.outcome, before, t.next};
    }
  }
}

// Sets cpu's summary bit from its word, then reads the word again: if it
// changed meanwhile, the bit is set again. Every bit change and every
// re-read are sequentially consistent, so the last writer of a bit saw the
// CPU's last state: a quiet table's summary matches its words exactly.
void CpuTable::sync_idle(int cpu) noexcept {
  auto& word = seg_->idle.mask[cpu / 64];
  const std::uint64_t bit = std::uint64_t(1) << (cpu % 64);
  auto& w = seg_->cpus[cpu].word;
  bool idle = CpuWord::unpack(w.load()).state == CpuState::Idle;
  for (;;) {
    if (idle)
      word.fetch_or(bit);
    else
      word.fetch_and(~bit);
    const bool now = CpuWord::unpack(w.load()).state == CpuState::Idle;
    if (now == idle) return;
    idle = now;
  }
}

int CpuTable::idle_hint() const noexcept {
  int n = 0;
  for (int i = 0, words = (ncpus_ + 63) / 64; i < words; ++i)
    n += __builtin_popcountll(idle_word(i));
  return n;
}

bool CpuTable::any_idle() const noexcept {
  for (int i = 0, words = (ncpus_ + 63) / 64; i < words; ++i)
    if (idle_word(i)) return true;
  return false;
}

std::uint64_t CpuTable::idle_word(int i) const noexcept {
  return seg_->idle.mask[i].load(std::memory_order_acquire);
}

std::uint32_t CpuTable::seq(int cpu) const noexcept {
  if (cpu < 0 || cpu >= ncpus_) return 0;
  return seg_->cpus[cpu].futex.load(std::memory_order_acquire);
}

void CpuTable::wait(int cpu, std::uint32_t seen, unsigned timeout_us) noexcept {
  if (cpu < 0 || cpu >= ncpus_) return;
  ShmCpu& c = seg_->cpus[cpu];
  c.waiters.fetch_add(1, std::memory_order_seq_cst);
  if (c.futex.load(std::memory_order_seq_cst) == seen) futex_wait(&c.futex, seen, timeout_us);
  c.waiters.fetch_sub(1, std::memory_order_relaxed);
}

void CpuTable::notify(int cpu) noexcept {
  if (cpu < 0 || cpu >= ncpus_) return;
  ShmCpu& c = seg_->cpus[cpu];
  c.futex.fetch_add(1, std::memory_order_seq_cst);
  if (c.waiters.load(std::memory_order_seq_cst) > 0) futex_wake(&c.futex, INT_MAX);
}

// The registry lock holds the holder's pid so that a holder that died is
// noticed and the lock taken over.
void CpuTable::lock() {
  const std::uint32_t me = std::uint32_t(::getpid());
  auto& l = seg_->header.lock;
  const std::uint64_t deadline = monotonic_ns() + 5'000'000'000ull;
  for (unsigned i = 0;; ++i) {
    std::uint32_t holder = 0;
    if (l.compare_exchange_weak(holder, me, std::memory_order_acquire)) return;
    if (holder != 0 && holder != me && !pid_exists(pid_t(holder)) &&
        l.compare_exchange_strong(holder, me, std::memory_order_acquire))
      return;
    if (monotonic_ns() > deadline)
      throw TableError(Kind::Busy, "joule: the registry of CPU table " + name_ +
                                       " has been locked by pid " + std::to_string(holder) +
                                       " for 5 s");
    if (i < 64)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

bool CpuTable::try_lock() {
  std::uint32_t holder = 0;
  auto& l = seg_->header.lock;
  const std::uint32_t me = std::uint32_t(::getpid());
  if (l.compare_exchange_strong(holder, me, std::memory_order_acquire)) return true;
  return holder != me && !pid_exists(pid_t(holder)) &&
         l.compare_exchange_strong(holder, me, std::memory_order_acquire);
}

void CpuTable::unlock() noexcept { seg_->header.lock.store(0, std::memory_order_release); }

int CpuTable::register_process(pid_t pid, int mode) {
  lock();
  ShmHeader& h = seg_->header;
  if (h.closing.load(std::memory_order_acquire)) {
    unlock();
    throw TableError(Kind::Busy, "joule: CPU table " + name_ + " is being removed");
  }
  int slot = -1;
  const int used = int(h.procs_used.load());
  // A launcher may have registered this very process before it started
  // (DLB_DROM_PreInit): it takes that slot over, with the CPUs it owns.
  for (int i = 0; i < used && slot < 0; ++i)
    if (pid_t(seg_->procs[i].pid.load()) == pid && process_alive(pid, seg_->procs[i].start_time))
      slot = i;
  for (int i = 0; i < used && slot < 0; ++i) {
    const pid_t p = pid_t(seg_->procs[i].pid.load());
    if (p == 0) slot = i;
  }
  if (slot < 0 && used < kMaxProcs) {
    slot = used;
    h.procs_used.store(std::uint32_t(used + 1));
  }
  if (slot < 0) {
    unlock();
    throw TableError(Kind::Full, "joule: CPU table " + name_ +
                                     " has no room for another process (" +
                                     std::to_string(kMaxProcs) + " registered)");
  }
  ShmProc& p = seg_->procs[slot];
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

bool CpuTable::unregister_process(int slot) {
  if (slot < 0 || slot >= kMaxProcs) return false;
  ShmProc& p = seg_->procs[slot];
  const pid_t pid = pid_t(p.pid.load());
  if (pid) release_all_of(pid);
  lock();
  p.pid.store(0, std::memory_order_release);
  seg_->header.epoch.fetch_add(1);
  bool last = true;
  const int used = int(seg_->header.procs_used.load());
  for (int i = 0; i < used && last; ++i) {
    const ShmProc& q = seg_->procs[i];
    const pid_t qp = pid_t(q.pid.load());
    if (qp && process_alive(qp, q.start_time)) last = false;
  }
  bool removed = false;
  if (last && shared_) {
    seg_->header.closing.store(1, std::memory_order_release);
    removed = ::shm_unlink(name_.c_str()) == 0;
  }
  unlock();
  return removed;
}

std::vector<ProcInfo> CpuTable::processes() const {
  std::vector<ProcInfo> out;
  const int used = int(seg_->header.procs_used.load());
  for (int i = 0; i < used; ++i) {
    const ShmProc& p = seg_->procs[i];
    const pid_t pid = pid_t(p.pid.load(std::memory_order_acquire));
    if (!pid) continue;
    out.push_back({pid, int(p.mode), std::string(p.comm, strnlen(p.comm, sizeof p.comm)),
                   process_alive(pid, p.start_time), p.revoked.load()});
  }
  return out;
}

int CpuTable::find_slot(pid_t pid) const {
  const int used = int(seg_->header.procs_used.load());
  for (int i = 0; i < used; ++i)
    if (pid_t(seg_->procs[i].pid.load(std::memory_order_acquire)) == pid) return i;
  return -1;
}

void CpuTable::release_all_of(pid_t pid) noexcept {
  for (int cpu = 0; cpu < ncpus_; ++cpu) {
    for (int guard = 0; guard < 4; ++guard) {  // disown, then return what is left
      const CpuWord w = load(cpu);
      if (w.owner == pid && w.state != CpuState::Disabled) {
        apply(cpu, CpuOp::Disown, pid);
      } else if (w.guest == pid) {
        apply(cpu, CpuOp::Return, pid);
      } else {
        break;
      }
    }
  }
}

int CpuTable::reap_dead() {
  if (!try_lock()) return 0;
  int dead = 0;
  const int used = int(seg_->header.procs_used.load());
  for (int i = 0; i < used; ++i) {
    ShmProc& p = seg_->procs[i];
    const pid_t pid = pid_t(p.pid.load(std::memory_order_acquire));
    if (!pid || process_alive(pid, p.start_time)) continue;
    release_all_of(pid);
    p.pid.store(0, std::memory_order_release);
    ++dead;
  }
  // Words naming a pid that no longer exists at all (never registered, or
  // its slot already freed): clean them too.
  for (int cpu = 0; cpu < ncpus_; ++cpu) {
    const CpuWord w = load(cpu);
    if (w.owner && !pid_exists(w.owner)) release_all_of(w.owner);
    if (w.guest && !pid_exists(w.guest)) release_all_of(w.guest);
  }
  if (dead) seg_->header.epoch.fetch_add(1);
  recount_idle();
  unlock();
  return dead;
}

void CpuTable::recount_idle() noexcept {
  for (int cpu = 0; cpu < ncpus_; ++cpu) sync_idle(cpu);
}

std::vector<int> CpuTable::owned_by(pid_t pid) const {
  std::vector<int> out;
  for (int cpu = 0; cpu < ncpus_; ++cpu) {
    const CpuWord w = load(cpu);
    if (w.state != CpuState::Disabled && w.owner == pid) out.push_back(cpu);
  }
  return out;
}

namespace {

// A process with a runtime keeps the CPU of the thread that started it
// (worker 0): that thread never parks, so a mask without it would never be
// acknowledged. Empty when the mask is fine.
std::string unackable(const ShmProc& p, pid_t pid, const std::uint64_t* mask) {
  const std::uint32_t home = p.home_cpu.load();
  if (home == 0) return {};
  const int cpu = int(home - 1);
  if (mask[cpu / 64] >> (cpu % 64) & 1) return {};
  return "CPU " + std::to_string(cpu) + " runs the thread that started process " +
         std::to_string(pid) +
         "'s runtime (worker 0) and cannot leave its mask; a process keeps at least that CPU";
}

}  // namespace

void CpuTable::set_home_cpu(int slot, int cpu) noexcept {
  if (slot < 0 || slot >= kMaxProcs) return;
  const bool ok = cpu >= 0 && cpu < ncpus_;
  seg_->procs[slot].home_cpu.store(ok ? std::uint32_t(cpu + 1) : 0);
}

void CpuTable::note_revoked(int slot) noexcept {
  if (slot >= 0 && slot < kMaxProcs) seg_->procs[slot].revoked.fetch_add(1);
}

long CpuTable::drom_request(pid_t pid, const std::vector<int>& cpus, std::string& why) {
  lock();
  const int slot = find_slot(pid);
  ShmProc* p = slot >= 0 ? &seg_->procs[slot] : nullptr;
  if (!p || !process_alive(pid, p->start_time)) {
    unlock();
    why = "process " + std::to_string(pid) + " is not registered in CPU table " + name_;
    return kNoProc;
  }
  std::uint64_t mask[kMaskWords] = {};
  for (int cpu : cpus) {
    const CpuWord w = load(cpu);
    if (cpu < 0 || cpu >= ncpus_) {
      unlock();
      why = "CPU " + std::to_string(cpu) + " does not exist (the table has " +
            std::to_string(ncpus_) + ")";
      return kBadCpu;
    }
    if (w.owner != 0 && w.owner != pid) {
      unlock();
      why = "CPU " + std::to_string(cpu) + " is owned by process " + std::to_string(w.owner) +
            "; remove it from that process's mask first";
      return kPerm;
    }
    mask[cpu / 64] |= std::uint64_t(1) << (cpu % 64);
  }
  if (const std::string rule = unackable(*p, pid, mask); !rule.empty()) {
    unlock();
    why = rule;
    return kUnackable;
  }
  const std::uint32_t s = p->drom_seq.load();
  p->drom_seq.store(s + 1, std::memory_order_relaxed);  // odd: being written
  std::atomic_thread_fence(std::memory_order_release);
  for (int i = 0; i < kMaskWords; ++i) p->drom_mask[i].store(mask[i], std::memory_order_relaxed);
  p->drom_seq.store(s + 2, std::memory_order_release);
  unlock();
  return long(s + 2);
}

bool CpuTable::drom_wait(pid_t pid, std::uint32_t seq, unsigned timeout_ms) {
  const int slot = find_slot(pid);
  if (slot < 0) return false;
  ShmProc& p = seg_->procs[slot];
  const std::uint64_t deadline = monotonic_ns() + std::uint64_t(timeout_ms) * 1'000'000ull;
  for (;;) {
    const std::uint32_t ack = p.drom_ack.load(std::memory_order_acquire);
    if (std::int32_t(ack - seq) >= 0) return true;
    if (!process_alive(pid, p.start_time)) return false;
    const std::uint64_t now = monotonic_ns();
    if (now >= deadline) return false;
    futex_wait(&p.drom_ack, ack, unsigned(std::min<std::uint64_t>((deadline - now) / 1000, 20000)));
  }
}

bool CpuTable::drom_poll(int slot, std::uint32_t& last, std::vector<int>& cpus) const {
  if (slot < 0) return false;
  const ShmProc& p = seg_->procs[slot];
  for (;;) {
    const std::uint32_t s1 = p.drom_seq.load(std::memory_order_acquire);
    if (s1 == last || (s1 & 1)) return false;
    std::uint64_t mask[kMaskWords];
    for (int i = 0; i < kMaskWords; ++i) mask[i] = p.drom_mask[i].load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (p.drom_seq.load(std::memory_order_relaxed) != s1) continue;
    cpus.clear();
    for (int cpu = 0; cpu < ncpus_; ++cpu)
      if (mask[cpu / 64] >> (cpu % 64) & 1) cpus.push_back(cpu);
    last = s1;
    return true;
  }
}

void CpuTable::drom_ack(int slot, std::uint32_t seq, int failed_cpu) noexcept {
  if (slot < 0) return;
  ShmProc& p = seg_->procs[slot];
  p.drom_error.store(std::uint32_t(failed_cpu + 1));
  p.drom_ack.store(seq, std::memory_order_release);
  futex_wake(&p.drom_ack, INT_MAX);
}

}  // namespace joule::lending
