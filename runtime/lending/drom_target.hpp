// DROM on the target side: applying a new owned mask written by another
// process (or joule-ctl) into our registry slot (drom_mailbox.hpp). CPUs
// that join are owned at once; CPUs that leave are disowned once no worker
// of ours runs there (a parked worker lets its CPU go, Session's
// wait_for_change). The requester is acknowledged when all of that is done.
// A newer request replaces a pending one (CPUs it keeps stop leaving), and
// the acknowledgement carries the request's sequence number, so an older
// request can never hold up a newer. Also the requester's side for a
// process asking through its own session (set_process_mask).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cpu_table.hpp"
#include "local_cpus.hpp"

namespace joule::lending {

class DromTarget {
 public:
  DromTarget(CpuTable& table, pid_t pid, LocalCpus& local);
  DromTarget(const DromTarget&) = delete;
  DromTarget& operator=(const DromTarget&) = delete;

  // Once registered: the slot, and the last request it saw (a reused slot
  // keeps its last DROM sequence).
  void start(int slot);

  // A new mask for us? Applies it (mask: the CPUs we own now).
  bool poll_mask(std::vector<int>& mask);
  // Whether cpu is leaving our mask (its worker parks, then it goes).
  bool leaving(int cpu) const noexcept { return leaving_[cpu].load() != 0; }
  int leaving_count() const noexcept { return leaving_count_.load(std::memory_order_relaxed); }
  // The worker of a leaving CPU has parked: disown it now.
  void finish_leaving(int cpu);

  // As a requester: sets or reads another process's owned CPUs (or ours,
  // applied here and now). 0: done, 1: timed out, else DromMailbox::Error.
  int set_process_mask(pid_t pid, const std::vector<int>& cpus, unsigned timeout_ms,
                       std::string& why);

  // The runtime's CpuManager uses this session: CPUs leaving the mask are
  // then disowned only once their worker has parked.
  void attach_runtime(bool on) noexcept { runtime_.store(on); }
  // The CPU of the thread that started the runtime (worker 0; -1: none):
  // it never parks, so DROM requests without it are refused.
  void set_home_cpu(int cpu) noexcept { table_.registry().set_home_cpu(slot_, cpu); }

 private:
  bool cancel_leaving(int cpu);
  void maybe_ack();  // caller holds mutex_

  CpuTable& table_;
  const pid_t pid_;
  LocalCpus& local_;
  int slot_ = -1;
  std::atomic<int> leaving_count_{0};
  std::unique_ptr<std::atomic<std::uint8_t>[]> leaving_;
  std::uint32_t seen_ = 0;
  std::uint32_t pending_ack_ = 0;
  int failed_cpu_ = -1;
  std::mutex mutex_;
  std::atomic<bool> runtime_{false};
};

}  // namespace joule::lending
