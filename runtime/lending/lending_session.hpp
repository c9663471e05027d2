// One process's membership of the CPU table. There is at most one session
// per process; the runtime's CpuManager (JOULE_LENDING=local|node), the C
// lending API (joule_lending_start, DLB_Init) and the MPI interposition
// library all share it, so they never disagree about a CPU. The session
// joins and leaves the table and owns its parts, each with its own header:
//
//   loans()     lending, reclaiming, borrowing, returning (cpu_loans.hpp)
//   hints()     the application's hints and parallelism cap (lending_hints.hpp)
//   drom()      DROM masks, ours and others' (drom_target.hpp)
//   nearness()  where to borrow first (nearness.hpp)
//
// and answers the runtime's hooks (lending_hooks.cpp): what a worker does at
// a task boundary, when idle or parked, and around blocking calls, where
// the LeWI policy (JOULE_LENDING_POLICY) decides.
//
// Every verb works on the shared table with one CAS per CPU; the session
// keeps only hints and per-CPU local flags, so calls from many threads at
// once are safe. Nothing here blocks for long except leave_blocking and
// wait_for_change, which sleep on the CPU's futex.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cpu_loans.hpp"
#include "cpu_table.hpp"
#include "drom_target.hpp"
#include "lending_hints.hpp"
#include "local_cpus.hpp"
#include "nearness.hpp"

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

  CpuLoans& loans() noexcept { return loans_; }
  const CpuLoans& loans() const noexcept { return loans_; }
  Hints& hints() noexcept { return hints_; }
  const Hints& hints() const noexcept { return hints_; }
  DromTarget& drom() noexcept { return drom_; }
  Nearness& nearness() noexcept { return nearness_; }

  // Disabled or Enabled also bring own lent CPUs home (and Disabled drops
  // the cap); borrowed ones go back at their next task boundary.
  void set_hint(Hint h);
  // Never lend cpu (two workers share it: JOULE_WORKERS above the CPUs).
  void never_lend(int cpu) noexcept { local_.never_lend(cpu); }
  // Cleans up after dead processes and revokes overdue claims (at most
  // every 50 ms; cheap otherwise).
  void maybe_reap();

  // ---- runtime hooks (CpuManager; lending_hooks.cpp) ----
  bool usable(int cpu);  // may this process run on cpu now? (records the futex seq)
  void wait_for_change(int cpu, unsigned timeout_us);
  void wake(int cpu);
  // Sleeps until usable(cpu) (reclaimed from a guest) or the timeout (0: none).
  bool wait_usable(int cpu, unsigned timeout_ms);
  bool release_idle(int cpu);
  bool must_return(int cpu);
  void acquire(int n, std::vector<int>& got);
  void enter_blocking(int keep);
  void leave_blocking();

 private:
  Session(LendingOptions opts, std::unique_ptr<CpuTable> table, pid_t id);
  static std::shared_ptr<Session> open(const LendingOptions& opts, const std::vector<int>& owned,
                                       pid_t id);
  void own(const std::vector<int>& cpus);

  // Read on every task boundary (must_return): the hints and the DROM
  // leaving count share lines written only when a hint, the cap or the
  // mask changes.
  const LendingOptions opts_;
  std::unique_ptr<CpuTable> table_;
  const pid_t pid_;
  int slot_ = -1;
  const bool autonomous_;
  Hints hints_;
  LocalCpus local_;
  DromTarget drom_;
  Nearness nearness_;
  CpuLoans loans_;
  alignas(64) std::atomic<std::uint64_t> last_reap_ns_{0};
};

}  // namespace joule::lending
