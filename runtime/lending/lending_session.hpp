// One process's membership of the CPU table: the CPUs it owns, lends and
// borrows, its LeWI policy and its application hints. There is at most one
// session per process; the runtime's CpuManager (JOULE_LEWI=local|node), the
// C lending API (joule_lending_start, DLB_Init) and the MPI interposition
// library all share it, so they never disagree about a CPU.
//
// Every verb works on the shared table with one CAS per CPU; the session
// keeps only hints and per-CPU local flags, so calls from many threads at
// once are safe. Nothing here blocks for long except leave_blocking and
// wait_for_change, which sleep on the CPU's futex.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cpu_table.hpp"

namespace joule::core {
struct Config;
}  // namespace joule::core

namespace joule::lending {

struct LendingOptions {
  std::string mode = "node";    // local | node
  std::string policy = "auto";  // auto: idle workers lend; mpi: only blocking calls lend
  std::string shm;              // segment name; empty: CpuTable::default_name()
  bool keep_cpu = false;        // keep the caller's CPU during blocking calls
  unsigned drom_timeout_ms = 5000;
  unsigned reclaim_timeout_ms = 500;  // 0: wait for the guest forever
};
LendingOptions options_from(const core::Config& cfg);

enum class Hint : std::uint8_t { Enabled, Disabled, Single };

class Session {
 public:
  // The session of this process, or null.
  static std::shared_ptr<Session> current();
  // Joins the process's session, creating it (and registering the process,
  // owning `owned`) if there is none; an existing one also takes `owned`.
  // Throws TableError (e.g. a CPU already owned by another live process).
  static std::shared_ptr<Session> join(const LendingOptions& opts, const std::vector<int>& owned);
  // A participant of its own for handle `number` (>= 1) of DLB's subprocess
  // API: not the process's session, an id of its own in the table
  // (os_support.hpp), owning `owned`. Throws TableError.
  static std::shared_ptr<Session> join_subprocess(const LendingOptions& opts,
                                                  const std::vector<int>& owned, int number);
  ~Session();  // gives back everything, leaves the table

  pid_t pid() const noexcept { return pid_; }
  CpuTable& table() noexcept { return *table_; }
  const LendingOptions& options() const noexcept { return opts_; }
  bool autonomous() const noexcept { return autonomous_; }
  // The CPU the calling thread runs on (workers and ranks are pinned).
  static int current_cpu();

  // ---- explicit verbs (C API, DLB API). Return the table outcome. ----
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
  bool usable(int cpu);  // may this process run on cpu now? (records the futex seq)
  void wait_for_change(int cpu, unsigned timeout_us);
  void wake(int cpu);
  // Sleeps until usable(cpu) (reclaimed from a guest) or the timeout (0: none).
  bool wait_usable(int cpu, unsigned timeout_ms);

  // ---- runtime hooks (CpuManager) ----
  bool release_idle(int cpu);
  bool must_return(int cpu);
  void acquire(int n, std::vector<int>& got);
  void enter_blocking(int keep);
  void leave_blocking();
  bool poll_mask(std::vector<int>& mask);

  // ---- application hints (DLB's enable/disable/single/parallel) ----
  Hint hint() const noexcept { return hint_.load(std::memory_order_relaxed); }
  void set_hint(Hint h);
  void set_max_parallelism(int n);  // <= 0: no cap
  int max_parallelism() const noexcept { return max_par_.load(std::memory_order_relaxed); }

  // DROM, as a requester: set or read another process's owned CPUs.
  int set_process_mask(pid_t pid, const std::vector<int>& cpus, unsigned timeout_ms,
                       std::string& why);

  void maybe_reap();
  // The runtime's CpuManager uses this session: CPUs leaving the mask are
  // then disowned only once their worker has parked.
  void attach_runtime(bool on) noexcept { runtime_.store(on); }
  // The CPU of the thread that started the runtime (worker 0; -1: none):
  // it never parks, so DROM requests without it are refused.
  void set_home_cpu(int cpu) noexcept { table_->set_home_cpu(slot_, cpu); }
  // Where to borrow first: levels of CPUs, nearest first (same core, shared
  // cache, NUMA node, package, ...), computed by whoever knows the machine
  // (the engine, from hwloc). CPUs in no level come last. Without it every
  // CPU is equally near.
  void set_nearness(const std::vector<std::vector<int>>& levels);
  // Never lend cpu (two workers share it: JOULE_WORKERS above the CPUs).
  void never_lend(int cpu) noexcept {
    if (cpu >= 0 && cpu < kMaxCpus) leaving_[cpu].fetch_or(kNeverLend);
  }

 private:
  Session(LendingOptions opts, std::unique_ptr<CpuTable> table, pid_t id);
  static std::shared_ptr<Session> open(const LendingOptions& opts, const std::vector<int>& owned,
                                       pid_t id);
  void own(const std::vector<int>& cpus);
  bool owns(int cpu) const noexcept { return table_->load(cpu).owner == pid_; }
  bool leaving(int cpu) const noexcept { return leaving_[cpu].load() & kLeaving; }
  bool no_lend(int cpu) const noexcept { return leaving_[cpu].load() & kNeverLend; }
  int held_count() const;
  bool over_cap() const;
  bool give_up(int cpu);  // lend (owned) or return (borrowed); true if done
  void finish_leaving(int cpu);
  void maybe_ack_drom();
  void revoke_overdue(std::uint64_t now);
  bool cancel_leaving(int cpu);

  // Local per-CPU flags (this process only).
  enum Local : std::uint8_t { kRunning = 0, kSleeping = 1, kBlockLent = 2 };
  static constexpr std::uint8_t kLeaving = 1, kNeverLend = 2;  // bits of leaving_

  void mark_lent(int cpu, bool lent) noexcept;
  void recount_lent();

  // Read on every task boundary (must_return): these share a line that is
  // written only when a hint, the cap or the mask changes.
  const LendingOptions opts_;
  std::unique_ptr<CpuTable> table_;
  const pid_t pid_;
  int slot_ = -1;
  const bool autonomous_;
  std::atomic<Hint> hint_{Hint::Enabled};
  std::atomic<int> max_par_{0};
  std::atomic<int> leaving_count_{0};
  std::unique_ptr<std::atomic<std::uint8_t>[]> local_;
  std::unique_ptr<std::atomic<std::uint8_t>[]> leaving_;  // kLeaving (DROM), kNeverLend
  // When our claim on a borrowed CPU began (monotonic ns, 0: none): past
  // reclaim_timeout_ms the claim becomes a revoke.
  std::unique_ptr<std::atomic<std::uint64_t>[]> claimed_ns_;
  // Written by lends, reclaims and the reaper: each on a line of its own so
  // that those writes do not evict the line above from every worker.
  alignas(64) std::atomic<int> lent_hint_{0};  // own CPUs lent (reclaim candidates); a hint
  alignas(64) std::atomic<std::uint64_t> last_reap_ns_{0};
  // Own CPUs lent, one bit per CPU (a superset hint: acquire re-reads the
  // word), so reclaiming reads only the lent ones.
  alignas(64) std::atomic<std::uint64_t> lent_mask_[kMaskWords];
  // Nearness levels as bitmaps (set_nearness); the last one is the rest.
  static constexpr int kMaxNear = 8;
  std::atomic<std::uint64_t> near_[kMaxNear][kMaskWords];
  std::atomic<int> near_levels_{0};
  alignas(64) std::mutex near_mutex_;
  std::uint32_t drom_seen_ = 0;
  std::uint32_t drom_pending_ack_ = 0;
  int drom_failed_cpu_ = -1;
  std::mutex drom_mutex_;
  std::atomic<int> single_cpu_{-1};  // the CPU kept by the single hint
  std::atomic<bool> runtime_{false};
};

}  // namespace joule::lending
