// One process's loans on the CPU table: lending its own CPUs, reclaiming
// them, borrowing idle CPUs of other processes and returning them, one at a
// time or in bulk, and what it holds now. These are the explicit verbs of the
// C lending API and the DLB API, and the moves the runtime hooks make
// (lending_session.hpp). Every verb is one CAS per CPU on the shared table;
// what is kept here is only a hint of the own CPUs lent (one bit per CPU, so
// reclaiming reads only those) and when a claim on a lent CPU began (past
// JOULE_LENDING_RECLAIM_TIMEOUT_MS the claim becomes a revoke).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "cpu_table.hpp"
#include "lending_hints.hpp"
#include "nearness.hpp"

namespace joule::lending {

class CpuLoans {
 public:
  CpuLoans(CpuTable& table, pid_t pid, const Hints& hints, const Nearness& nearness,
           unsigned reclaim_timeout_ms);
  CpuLoans(const CpuLoans&) = delete;
  CpuLoans& operator=(const CpuLoans&) = delete;

  Outcome lend_cpu(int cpu);     // owner: Busy -> Idle; a guest: returns it
  Outcome reclaim_cpu(int cpu);  // owner: Idle -> Busy, Borrowed -> Claimed
  Outcome borrow_cpu(int cpu);   // non-owner: Idle -> Borrowed
  Outcome return_cpu(int cpu);   // guest: gives it back
  Outcome acquire_cpu(int cpu);  // reclaim if owned, else borrow
  int lend_all(bool keep_current);
  int reclaim_all(std::vector<int>* got);  // immediate ones appended to got
  int borrow_up_to(int n, std::vector<int>* got);
  int return_all();
  int return_claimed();  // gives back borrowed CPUs whose owner claimed them
  int give_back(int n, std::vector<int>* given);

  int available_now() const;  // held + reclaimable + borrowable now, capped
  std::vector<int> held_cpus() const;
  std::vector<int> owned_cpus() const;
  int held_count() const;
  // CPUs of other processes it runs on now (Borrowed, or Claimed by their
  // owner and not given back yet): what a standing request already holds.
  int borrowed_count() const;

  // The own CPUs lent (reclaim candidates): a superset hint, re-read from
  // the table at most every 50 ms (recount_lent, from Session::maybe_reap).
  bool any_lent() const noexcept { return lent_hint_.load(std::memory_order_relaxed) > 0; }
  std::uint64_t lent_word(int i) const noexcept {
    return lent_mask_[i].load(std::memory_order_relaxed);
  }
  void recount_lent();
  // Revokes claims older than the reclaim timeout; `slot` counts them.
  void revoke_overdue(std::uint64_t now, int slot);

 private:
  bool owns(int cpu) const noexcept { return table_.load(cpu).owner == pid_; }
  bool over_cap() const;
  void mark_lent(int cpu, bool lent) noexcept;

  CpuTable& table_;
  const pid_t pid_;
  const Hints& hints_;
  const Nearness& nearness_;
  const unsigned reclaim_timeout_ms_;
  // When our claim on a lent CPU began (monotonic ns, 0: none).
  std::unique_ptr<std::atomic<std::uint64_t>[]> claimed_ns_;
  // Written by lends, reclaims and the reaper: each on a line of its own so
  // that those writes do not evict the session's hints from every worker.
  alignas(64) std::atomic<int> lent_hint_{0};
  alignas(64) std::atomic<std::uint64_t> lent_mask_[kMaskWords];
};

}  // namespace joule::lending
