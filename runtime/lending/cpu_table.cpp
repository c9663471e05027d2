// Transitions, the idle summary, futex waits and giving back a process's CPUs.
#include "cpu_table.hpp"

#include <unistd.h>
#include <climits>

#include "os_support.hpp"
#include "trace_api.hpp"

namespace joule::lending {

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

std::vector<int> CpuTable::owned_by(pid_t pid) const {
  std::vector<int> out;
  for (int cpu = 0; cpu < ncpus_; ++cpu) {
    const CpuWord w = load(cpu);
    if (w.state != CpuState::Disabled && w.owner == pid) out.push_back(cpu);
  }
  return out;
}

}  // namespace joule::lending
