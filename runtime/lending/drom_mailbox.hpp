// DROM's mailbox in the CPU table: a requester (another process, joule-ctl,
// DLB_DROM_SetProcessMask) writes the new owned mask of a process into that
// process's registry slot as a seqlock; the process picks it up at its next
// poll (drom_target.hpp) and acknowledges the sequence it applied through a
// futex word the requester may wait on. Nothing here changes a CPU.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace joule::lending {

class CpuTable;

class DromMailbox {
 public:
  // kUnackable: a mask the target could never apply (without the CPU of its
  // runtime's worker 0, see ProcessRegistry::set_home_cpu): refused rather
  // than left pending.
  enum Error { kNoProc = -1, kPerm = -2, kBadCpu = -3, kUnackable = -4 };

  explicit DromMailbox(CpuTable& table) noexcept : table_(table) {}
  DromMailbox(const DromMailbox&) = delete;
  DromMailbox& operator=(const DromMailbox&) = delete;

  // Writes the new owned mask of `pid`; returns the sequence number to wait
  // for, or a negative Error with why set.
  long request(pid_t pid, const std::vector<int>& cpus, std::string& why);
  // Waits until pid acknowledged seq (true) or the timeout passes.
  bool wait(pid_t pid, std::uint32_t seq, unsigned timeout_ms);
  // The target's side: a new request since `last`? (mask in cpus, seq in last)
  bool poll(int slot, std::uint32_t& last, std::vector<int>& cpus) const;
  void ack(int slot, std::uint32_t seq, int failed_cpu) noexcept;

 private:
  CpuTable& table_;
};

}  // namespace joule::lending
