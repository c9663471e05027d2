// DROM on the target side: applying a new owned mask written by another
// process (or joule-ctl) into our registry slot. CPUs that join are owned at
// once; CPUs that leave are disowned once no worker of ours runs there (a
// parked worker lets its CPU go in wait_for_change). The requester is
// acknowledged when all of that is done. A newer request replaces a pending
// one (CPUs it keeps stop leaving), and the acknowledgement carries the
// request's sequence number, so an older request can never hold up a newer.
#include <algorithm>

#include "lending_session.hpp"

namespace joule::lending {

bool Session::poll_mask(std::vector<int>& mask) {
  std::lock_guard guard(drom_mutex_);
  maybe_ack_drom();
  std::vector<int> want;
  std::uint32_t seq = drom_seen_;
  if (!table_->drom_poll(slot_, seq, want)) return false;
  drom_seen_ = seq;
  const std::vector<int> owned = owned_cpus();
  int failed = -1;
  mask.clear();
  for (int c : want) {
    // Still leaving from an earlier request that this one replaces: it stays,
    // and that request's wait no longer holds this one's acknowledgement.
    cancel_leaving(c);
    const bool had = std::find(owned.begin(), owned.end(), c) != owned.end();
    if (!had && table_->apply(c, CpuOp::Own, pid_).outcome == Outcome::Illegal) {
      if (failed < 0) failed = c;  // taken by someone else since the request
      continue;
    }
    mask.push_back(c);
  }
  for (int c : owned) {
    if (std::find(want.begin(), want.end(), c) != want.end()) continue;
    const CpuWord w = table_->load(c);
    local_[c].store(kRunning);
    if (w.state == CpuState::Busy && runtime_.load()) {
      if (!(leaving_[c].fetch_or(kLeaving) & kLeaving)) leaving_count_.fetch_add(1);
      table_->notify(c);  // its worker, if parked, lets it go now
    } else {
      table_->apply(c, CpuOp::Disown, pid_);
    }
  }
  drom_pending_ack_ = seq;
  drom_failed_cpu_ = failed;
  maybe_ack_drom();
  return true;
}

bool Session::cancel_leaving(int cpu) {
  if (cpu < 0 || cpu >= kMaxCpus) return false;
  if (!(leaving_[cpu].fetch_and(std::uint8_t(~kLeaving)) & kLeaving)) return false;
  leaving_count_.fetch_sub(1);
  table_->notify(cpu);  // its parked worker may run again
  return true;
}

void Session::finish_leaving(int cpu) {
  if (!(leaving_[cpu].fetch_and(std::uint8_t(~kLeaving)) & kLeaving)) return;
  table_->apply(cpu, CpuOp::Disown, pid_);
  leaving_count_.fetch_sub(1);
  std::lock_guard guard(drom_mutex_);
  maybe_ack_drom();
}

// Caller holds drom_mutex_.
void Session::maybe_ack_drom() {
  if (drom_pending_ack_ == 0 || leaving_count_.load() != 0) return;
  table_->drom_ack(slot_, drom_pending_ack_, drom_failed_cpu_);
  drom_pending_ack_ = 0;
  drom_failed_cpu_ = -1;
}

}  // namespace joule::lending
