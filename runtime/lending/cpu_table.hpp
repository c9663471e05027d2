// The node-wide CPU table: a POSIX shared-memory segment (per user, mode
// 0600, versioned) created by the first joule process and attached by the
// others, or a private copy for JOULE_LEWI=local. Each CPU changes by one CAS
// of its packed word through the pure state machine (cpu_state.hpp); every
// change bumps the CPU's futex word so that parked workers of any process
// wake. A registry of processes lets the table clean up after dead ones.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu_state.hpp"
#include "shm_layout.hpp"

namespace joule::lending {

// A segment that cannot be used; what() says why and what to do.
class TableError : public std::runtime_error {
 public:
  enum class Kind { System, Foreign, Corrupt, Version, Full, Busy };
  TableError(Kind k, const std::string& what) : std::runtime_error(what), kind_(k) {}
  Kind kind() const noexcept { return kind_; }

 private:
  Kind kind_;
};

struct ProcInfo {
  pid_t pid = 0;
  int mode = 0;
  std::string comm;
  bool alive = false;
  unsigned revoked = 0;  // CPUs taken back from unresponsive guests (ShmProc::revoked)
};

class CpuTable {
 public:
  // The default segment name of the calling user: "/joule-cpus-<uid>".
  static std::string default_name();
  // A valid shm name ("/x" with no other '/', at most 200 characters), or
  // throws std::invalid_argument.
  static std::string check_name(const std::string& name);

  // Opens the node table, creating it if it does not exist. Throws TableError.
  static std::unique_ptr<CpuTable> open_shared(const std::string& name);
  // Attaches an existing table only (tools); nullptr if there is none.
  static std::unique_ptr<CpuTable> attach_existing(const std::string& name);
  // A table private to this process (JOULE_LEWI=local).
  static std::unique_ptr<CpuTable> open_private();
  // Removes the segment `name` if no live process uses it (or, with force,
  // whatever it holds). Returns a line saying what happened; *failed (when
  // given) says whether an error kept it from doing so (a table in use is
  // not an error).
  static std::string clean(const std::string& name, bool force, bool* failed = nullptr);

  ~CpuTable();
  CpuTable(const CpuTable&) = delete;
  CpuTable& operator=(const CpuTable&) = delete;

  const std::string& name() const noexcept { return name_; }
  bool shared() const noexcept { return shared_; }
  int ncpus() const noexcept { return ncpus_; }

  CpuWord load(int cpu) const noexcept;
  struct Result {
    Outcome outcome;
    CpuWord before, after;
  };
  // Applies `op` for `actor` with a CAS loop; wakes waiters on a change.
  Result apply(int cpu, CpuOp op, pid_t actor) noexcept;
  // The idle summary (shm_layout.hpp, ShmIdle): Idle CPUs counted, any at
  // all, and word i of the bitmap (CPUs 64i .. 64i+63).
  int idle_hint() const noexcept;
  bool any_idle() const noexcept;
  std::uint64_t idle_word(int i) const noexcept;
  int idle_words() const noexcept { return (ncpus_ + 63) / 64; }
  // Re-derives cpu's summary bit from its word (after every Idle change).
  void sync_idle(int cpu) noexcept;

  // Futex protocol: read seq(), check the condition, then wait(cpu, seq).
  std::uint32_t seq(int cpu) const noexcept;
  void wait(int cpu, std::uint32_t seen, unsigned timeout_us) noexcept;
  void notify(int cpu) noexcept;

  // Registry. register_process returns the slot (the one already registered
  // for the same live process, if any); throws TableError (Full, or Busy
  // when the segment is being removed: reopen).
  int register_process(pid_t pid, int mode);
  // Releases every CPU of pid, frees its slot; removes the segment when no
  // live process is left. Returns true if it removed it.
  bool unregister_process(int slot);
  std::vector<ProcInfo> processes() const;
  int find_slot(pid_t pid) const;

  // Cleans the CPUs and slots of dead processes (at most one caller at a
  // time; returns 0 at once if another is cleaning). Returns how many died.
  int reap_dead();
  // Gives back everything `pid` holds: owned CPUs are disowned, borrowed
  // ones returned. Safe to repeat.
  void release_all_of(pid_t pid) noexcept;

  // DROM. request: writes the new owned mask of `pid`; returns the sequence
  // number to wait for, or a negative DromError.
  // kUnackable: a mask the target could never apply (without the CPU of its
  // runtime's worker 0, see set_home_cpu): refused rather than left pending.
  enum DromError { kNoProc = -1, kPerm = -2, kBadCpu = -3, kUnackable = -4 };
  long drom_request(pid_t pid, const std::vector<int>& cpus, std::string& why);
  // Waits until pid acknowledged seq (true) or the timeout passes.
  bool drom_wait(pid_t pid, std::uint32_t seq, unsigned timeout_ms);
  // The target's side: a new request since `last`? (mask in cpus, seq in last)
  bool drom_poll(int slot, std::uint32_t& last, std::vector<int>& cpus) const;
  void drom_ack(int slot, std::uint32_t seq, int failed_cpu) noexcept;
  // The CPU of the thread that started slot's runtime (worker 0); -1: none.
  void set_home_cpu(int slot, int cpu) noexcept;
  // Counts a CPU that slot's process revoked from an unresponsive guest.
  void note_revoked(int slot) noexcept;
  // CPUs that pid owns now.
  std::vector<int> owned_by(pid_t pid) const;

  ShmSegment* segment() noexcept { return seg_; }

 private:
  CpuTable(ShmSegment* seg, std::string name, bool shared, int fd);
  static std::unique_ptr<CpuTable> open(const std::string& name, bool create);
  static std::unique_ptr<CpuTable> try_attach(const std::string& name, int fd, bool& retry);
  void init_header(pid_t creator);
  void lock();
  bool try_lock();
  void unlock() noexcept;
  void recount_idle() noexcept;

  ShmSegment* seg_;
  std::string name_;
  bool shared_;
  int fd_;
  int ncpus_;
};

}  // namespace joule::lending
