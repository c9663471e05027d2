// Applying DROM requests to our own mask, and asking for another's.
#include "drom_target.hpp"

#include <algorithm>

namespace joule::lending {

DromTarget::DromTarget(CpuTable& table, pid_t pid, LocalCpus& local)
    : table_(table),
      pid_(pid),
      local_(local),
      leaving_(new std::atomic<std::uint8_t>[std::size_t(kMaxCpus)]) {
  for (int i = 0; i < kMaxCpus; ++i) leaving_[i].store(0, std::memory_order_relaxed);
}

void DromTarget::start(int slot) {
  slot_ = slot;
  seen_ = table_.segment()->procs[slot].drom_seq.load();
}

bool DromTarget::poll_mask(std::vector<int>& mask) {
  std::lock_guard guard(mutex_);
  maybe_ack();
  std::vector<int> want;
  std::uint32_t seq = seen_;
  if (!table_.drom().poll(slot_, seq, want)) return false;
  seen_ = seq;
  const std::vector<int> owned = table_.owned_by(pid_);
  int failed = -1;
  mask.clear();
  for (int c : want) {
    // Still leaving from an earlier request that this one replaces: it stays,
    // and that request's wait no longer holds this one's acknowledgement.
    cancel_leaving(c);
    const bool had = std::find(owned.begin(), owned.end(), c) != owned.end();
    if (!had && table_.apply(c, CpuOp::Own, pid_).outcome == Outcome::Illegal) {
      if (failed < 0) failed = c;  // taken by someone else since the request
      continue;
    }
    mask.push_back(c);
  }
  for (int c : owned) {
    if (std::find(want.begin(), want.end(), c) != want.end()) continue;
    const CpuWord w = table_.load(c);
    local_[c].store(LocalCpus::kRunning);
    if (w.state == CpuState::Busy && runtime_.load()) {
      if (!leaving_[c].fetch_or(1)) leaving_count_.fetch_add(1);
      table_.notify(c);  // its worker, if parked, lets it go now
    } else {
      table_.apply(c, CpuOp::Disown, pid_);
    }
  }
  pending_ack_ = seq;
  failed_cpu_ = failed;
  maybe_ack();
  return true;
}

bool DromTarget::cancel_leaving(int cpu) {
  if (cpu < 0 || cpu >= kMaxCpus) return false;
  if (!leaving_[cpu].exchange(0)) return false;
  leaving_count_.fetch_sub(1);
  table_.notify(cpu);  // its parked worker may run again
  return true;
}

void DromTarget::finish_leaving(int cpu) {
  if (!leaving_[cpu].exchange(0)) return;
  table_.apply(cpu, CpuOp::Disown, pid_);
  leaving_count_.fetch_sub(1);
  std::lock_guard guard(mutex_);
  maybe_ack();
}

void DromTarget::maybe_ack() {
  if (pending_ack_ == 0 || leaving_count_.load() != 0) return;
  table_.drom().ack(slot_, pending_ack_, failed_cpu_);
  pending_ack_ = 0;
  failed_cpu_ = -1;
}

int DromTarget::set_process_mask(pid_t pid, const std::vector<int>& cpus, unsigned timeout_ms,
                                 std::string& why) {
  const long seq = table_.drom().request(pid, cpus, why);
  if (seq < 0) return int(seq);
  if (pid == pid_) {  // our own mask: apply it here and now
    std::vector<int> mask;
    poll_mask(mask);
  }
  if (timeout_ms == 0) return 0;
  if (!table_.drom().wait(pid, std::uint32_t(seq), timeout_ms)) {
    why = "process " + std::to_string(pid) + " did not apply the new mask within " +
          std::to_string(timeout_ms) + " ms (masks are applied at task boundaries)";
    return 1;
  }
  return 0;
}

}  // namespace joule::lending
