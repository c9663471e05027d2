// The node-wide CPU table: a POSIX shared-memory segment (per user, mode
// 0600, versioned) created by the first joule process and attached by the
// others, or a private copy for JOULE_LENDING=local. Each CPU changes by one CAS
// of its packed word through the pure state machine (cpu_state.hpp); every
// change bumps the CPU's futex word so that parked workers of any process
// wake. The table owns the segment and its CPU words; the registry of
// processes (process_registry.hpp) and DROM's mailbox (drom_mailbox.hpp)
// live in the same segment and are reached through it. The opening and
// cleaning factories (cpu_table_open.cpp) account for six of its public
// functions: a segment is opened in one of several ways, each with its own
// checks.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu_state.hpp"
#include "drom_mailbox.hpp"
#include "process_registry.hpp"
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
  // A table private to this process (JOULE_LENDING=local).
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

  // Gives back everything `pid` holds: owned CPUs are disowned, borrowed
  // ones returned. Safe to repeat.
  void release_all_of(pid_t pid) noexcept;
  // CPUs that pid owns now.
  std::vector<int> owned_by(pid_t pid) const;

  ProcessRegistry& registry() noexcept { return registry_; }
  const ProcessRegistry& registry() const noexcept { return registry_; }
  DromMailbox& drom() noexcept { return drom_; }
  ShmSegment* segment() const noexcept { return seg_; }

 private:
  CpuTable(ShmSegment* seg, std::string name, bool shared, int fd);
  static std::unique_ptr<CpuTable> open(const std::string& name, bool create);
  static std::unique_ptr<CpuTable> try_attach(const std::string& name, int fd, bool& retry);
  void init_header(pid_t creator);

  ShmSegment* seg_;
  std::string name_;
  bool shared_;
  int fd_;
  int ncpus_;
  ProcessRegistry registry_{*this};
  DromMailbox drom_{*this};
};

}  // namespace joule::lending
