// The CPU table's registry of processes: who takes part (pid, start time,
// name, mode), so that the CPUs of a process that died are found and given
// back, and the last one to leave removes the segment. Its lock (the
// header's `lock` word, shm_layout.hpp) holds the holder's pid, so a holder
// that died is noticed and the lock taken over. The lock orders
// registration, DROM requests (drom_mailbox.hpp) and cleaning; a CPU's
// transition never takes it (one CAS each, cpu_table.hpp).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace joule::lending {

class CpuTable;

struct ProcInfo {
  pid_t pid = 0;
  int mode = 0;
  std::string comm;
  bool alive = false;
  unsigned revoked = 0;  // CPUs taken back from unresponsive guests (ShmProc::revoked)
};

class ProcessRegistry {
 public:
  explicit ProcessRegistry(CpuTable& table) noexcept : table_(table) {}
  ProcessRegistry(const ProcessRegistry&) = delete;
  ProcessRegistry& operator=(const ProcessRegistry&) = delete;

  // Returns the slot (the one already registered for the same live
  // process, if any); throws TableError (Full, or Busy when the segment is
  // being removed: reopen).
  int register_process(pid_t pid, int mode);
  // Releases every CPU of the slot's process, frees the slot; removes the
  // segment when no live process is left. Returns true if it removed it.
  bool unregister_process(int slot);
  std::vector<ProcInfo> processes() const;
  int find_slot(pid_t pid) const;

  // Cleans the CPUs and slots of dead processes (at most one caller at a
  // time; returns 0 at once if another is cleaning). Returns how many died.
  int reap_dead();

  // The CPU of the thread that started slot's runtime (worker 0); -1: none.
  void set_home_cpu(int slot, int cpu) noexcept;
  // Counts a CPU that slot's process revoked from an unresponsive guest.
  void note_revoked(int slot) noexcept;

  // The registry lock (throws TableError after 5 s held by a live process).
  void lock();
  bool try_lock();
  void unlock() noexcept;

 private:
  CpuTable& table_;
};

}  // namespace joule::lending
