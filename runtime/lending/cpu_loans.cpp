// The explicit verbs on CPUs (C and DLB APIs, and the runtime hooks).
#include "cpu_loans.hpp"

#include <algorithm>

#include "os_support.hpp"

namespace joule::lending {

CpuLoans::CpuLoans(CpuTable& table, pid_t pid, const Hints& hints, const Nearness& nearness,
                   unsigned reclaim_timeout_ms)
    : table_(table),
      pid_(pid),
      hints_(hints),
      nearness_(nearness),
      reclaim_timeout_ms_(reclaim_timeout_ms),
      claimed_ns_(new std::atomic<std::uint64_t>[std::size_t(kMaxCpus)]) {
  for (int i = 0; i < kMaxCpus; ++i) claimed_ns_[i].store(0, std::memory_order_relaxed);
}

// A dead guest's CPUs come back through reap_dead; a live one that does not
// return a claimed CPU (SIGSTOP, a hang) loses it once the claim is older
// than reclaim_timeout_ms. The claim's age starts at reclaim_cpu, or when
// first seen here for claims made another way (DROM adopting a CPU).
void CpuLoans::revoke_overdue(std::uint64_t now, int slot) {
  const std::uint64_t limit = std::uint64_t(reclaim_timeout_ms_) * 1'000'000ull;
  if (limit == 0) return;
  for (int c = 0; c < table_.ncpus(); ++c) {
    const CpuWord w = table_.load(c);
    const std::uint64_t since = claimed_ns_[c].load(std::memory_order_relaxed);
    if (w.state != CpuState::Claimed || w.owner != pid_) {
      if (since) claimed_ns_[c].store(0, std::memory_order_relaxed);
      continue;
    }
    if (!since) {
      claimed_ns_[c].store(now, std::memory_order_relaxed);
    } else if (now - since >= limit &&
               table_.apply(c, CpuOp::Revoke, pid_).outcome == Outcome::Done) {
      claimed_ns_[c].store(0, std::memory_order_relaxed);
      table_.registry().note_revoked(slot);
    }
  }
}

// The lent hints from the table (at most every 50 ms, from maybe_reap).
void CpuLoans::recount_lent() {
  int lent = 0;
  for (int i = 0; i < table_.idle_words(); ++i) {
    std::uint64_t bits = 0;
    for (int b = 0; b < 64 && i * 64 + b < table_.ncpus(); ++b) {
      const CpuWord w = table_.load(i * 64 + b);
      if (w.owner == pid_ && (w.state == CpuState::Idle || w.state == CpuState::Borrowed))
        bits |= std::uint64_t(1) << b;
    }
    lent_mask_[i].store(bits, std::memory_order_relaxed);
    lent += __builtin_popcountll(bits);
  }
  lent_hint_.store(lent, std::memory_order_relaxed);
}

void CpuLoans::mark_lent(int cpu, bool lent) noexcept {
  const std::uint64_t bit = std::uint64_t(1) << (cpu % 64);
  if (lent) {
    lent_mask_[cpu / 64].fetch_or(bit, std::memory_order_relaxed);
    lent_hint_.fetch_add(1, std::memory_order_relaxed);
  } else {
    lent_mask_[cpu / 64].fetch_and(~bit, std::memory_order_relaxed);
    lent_hint_.fetch_sub(1, std::memory_order_relaxed);
  }
}

Outcome CpuLoans::lend_cpu(int cpu) {
  const CpuWord w = table_.load(cpu);
  if (w.guest == pid_ && w.owner != pid_) return return_cpu(cpu);
  const auto r = table_.apply(cpu, CpuOp::Lend, pid_);
  if (r.outcome == Outcome::Done) mark_lent(cpu, true);
  return r.outcome;
}

Outcome CpuLoans::reclaim_cpu(int cpu) {
  const auto r = table_.apply(cpu, CpuOp::Reclaim, pid_);
  if (r.outcome == Outcome::Done || r.outcome == Outcome::Pending) mark_lent(cpu, false);
  if (r.outcome == Outcome::Pending)
    claimed_ns_[cpu].store(monotonic_ns(), std::memory_order_relaxed);
  return r.outcome;
}

Outcome CpuLoans::borrow_cpu(int cpu) {
  if (hints_.hint() != Hint::Enabled || over_cap()) return Outcome::Illegal;
  return table_.apply(cpu, CpuOp::Borrow, pid_).outcome;
}

Outcome CpuLoans::return_cpu(int cpu) { return table_.apply(cpu, CpuOp::Return, pid_).outcome; }

Outcome CpuLoans::acquire_cpu(int cpu) { return owns(cpu) ? reclaim_cpu(cpu) : borrow_cpu(cpu); }

int CpuLoans::lend_all(bool keep_current) {
  const int keep = keep_current ? current_cpu() : -1;
  int n = 0;
  for (int c = 0; c < table_.ncpus(); ++c) {
    const CpuWord w = table_.load(c);
    if (c == keep || !runs_on(w, pid_)) continue;
    n += lend_cpu(c) == Outcome::Done;
  }
  return n;
}

int CpuLoans::reclaim_all(std::vector<int>* got) {
  int n = 0;
  for (int c = 0; c < table_.ncpus(); ++c) {
    if (!owns(c)) continue;
    const Outcome o = reclaim_cpu(c);
    if (o == Outcome::Done && got) got->push_back(c);
    n += o == Outcome::Done || o == Outcome::Pending;
  }
  return n;
}

// Idle CPUs of other processes, nearest level first: each level's bitmap
// ANDed with the idle summary, so the table is read only where a CPU is
// idle (a few word loads at 128 CPUs); the CAS on the CPU's word decides.
int CpuLoans::borrow_up_to(int n, std::vector<int>* got) {
  if (n <= 0 || hints_.hint() != Hint::Enabled) return 0;
  if (const int cap = hints_.max_parallelism(); cap > 0) n = std::min(n, cap - held_count());
  // Locals: the members are references, reloaded after every CAS otherwise.
  CpuTable& table = table_;
  const Nearness& near = nearness_;
  const pid_t pid = pid_;
  const int ncpus = table.ncpus(), words = table.idle_words();
  const int levels = near.levels();
  int taken = 0;
  for (int l = 0; l < std::max(levels, 1) && taken < n; ++l) {
    for (int i = 0; i < words && taken < n; ++i) {
      std::uint64_t m = table.idle_word(i) & ~lent_mask_[i].load(std::memory_order_relaxed);
      if (levels > 0) m &= near.word(l, i);
      for (; m && taken < n; m &= m - 1) {
        const int c = i * 64 + __builtin_ctzll(m);
        if (c >= ncpus) break;
        const CpuWord w = table.load(c);
        if (w.state != CpuState::Idle || w.owner == pid) continue;
        if (table.apply(c, CpuOp::Borrow, pid).outcome != Outcome::Done) continue;
        ++taken;
        if (got) got->push_back(c);
      }
    }
  }
  return taken;
}

int CpuLoans::return_all() {
  int n = 0;
  for (int c = 0; c < table_.ncpus(); ++c)
    if (table_.load(c).guest == pid_) n += return_cpu(c) == Outcome::Done;
  return n;
}

int CpuLoans::return_claimed() {
  int n = 0;
  for (int c = 0; c < table_.ncpus(); ++c) {
    const CpuWord w = table_.load(c);
    if (w.state == CpuState::Claimed && w.guest == pid_) n += return_cpu(c) == Outcome::Done;
  }
  return n;
}

int CpuLoans::give_back(int n, std::vector<int>* given) {
  const int keep = current_cpu();
  int done = 0;
  for (int pass = 0; pass < 2 && done < n; ++pass) {  // borrowed CPUs first, then own
    for (int c = table_.ncpus() - 1; c >= 0 && done < n; --c) {
      const CpuWord w = table_.load(c);
      if (!runs_on(w, pid_) || c == keep) continue;
      const bool borrowed = w.guest == pid_;
      if (borrowed != (pass == 0)) continue;
      if ((borrowed ? return_cpu(c) : lend_cpu(c)) != Outcome::Done) continue;
      ++done;
      if (given) given->push_back(c);
    }
  }
  return done;
}

int CpuLoans::held_count() const {
  int n = 0;
  for (int c = 0; c < table_.ncpus(); ++c) n += runs_on(table_.load(c), pid_);
  return n;
}

int CpuLoans::borrowed_count() const {
  int n = 0;
  for (int c = 0; c < table_.ncpus(); ++c) {
    const CpuWord w = table_.load(c);
    n += w.guest == pid_ && w.owner != pid_;
  }
  return n;
}

bool CpuLoans::over_cap() const {
  const int cap = hints_.max_parallelism();
  return cap > 0 && held_count() >= cap;
}

int CpuLoans::available_now() const {
  int n = 0;
  for (int c = 0; c < table_.ncpus(); ++c) {
    const CpuWord w = table_.load(c);
    n += runs_on(w, pid_) && w.state != CpuState::Claimed;
    if (w.state == CpuState::Idle && (w.owner == pid_ || hints_.hint() == Hint::Enabled)) ++n;
  }
  const int cap = hints_.max_parallelism();
  return cap > 0 ? std::min(n, cap) : n;
}

std::vector<int> CpuLoans::held_cpus() const {
  std::vector<int> out;
  for (int c = 0; c < table_.ncpus(); ++c)
    if (runs_on(table_.load(c), pid_)) out.push_back(c);
  return out;
}

std::vector<int> CpuLoans::owned_cpus() const { return table_.owned_by(pid_); }

}  // namespace joule::lending
