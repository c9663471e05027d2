// DROM requests, their acknowledgement and the target's poll.
#include "drom_mailbox.hpp"

#include <algorithm>
#include <climits>

#include "cpu_table.hpp"
#include "os_support.hpp"

namespace joule::lending {
namespace {

// A process with a runtime keeps the CPU of the thread that started it
// (worker 0): that thread never parks, so a mask without it would never be
// acknowledged. Empty when the mask is fine.
std::string unackable(const ShmProc& p, pid_t pid, const std::uint64_t* mask) {
  const std::uint32_t home = p.home_cpu.load();
  if (home == 0) return {};
  const int cpu = int(home - 1);
  if (mask[cpu / 64] >> (cpu % 64) & 1) return {};
  return "CPU " + std::to_string(cpu) + " runs the thread that started process " +
         std::to_string(pid) +
         "'s runtime (worker 0) and cannot leave its mask; a process keeps at least that CPU";
}

}  // namespace

long DromMailbox::request(pid_t pid, const std::vector<int>& cpus, std::string& why) {
  ProcessRegistry& reg = table_.registry();
  const int ncpus = table_.ncpus();
  reg.lock();
  const int slot = reg.find_slot(pid);
  ShmProc* p = slot >= 0 ? &table_.segment()->procs[slot] : nullptr;
  if (!p || !process_alive(pid, p->start_time)) {
    reg.unlock();
    why = "process " + std::to_string(pid) + " is not registered in CPU table " + table_.name();
    return kNoProc;
  }
  std::uint64_t mask[kMaskWords] = {};
  for (int cpu : cpus) {
    const CpuWord w = table_.load(cpu);
    if (cpu < 0 || cpu >= ncpus) {
      reg.unlock();
      why = "CPU " + std::to_string(cpu) + " does not exist (the table has " +
            std::to_string(ncpus) + ")";
      return kBadCpu;
    }
    if (w.owner != 0 && w.owner != pid) {
      reg.unlock();
      why = "CPU " + std::to_string(cpu) + " is owned by process " + std::to_string(w.owner) +
            "; remove it from that process's mask first";
      return kPerm;
    }
    mask[cpu / 64] |= std::uint64_t(1) << (cpu % 64);
  }
  if (const std::string rule = unackable(*p, pid, mask); !rule.empty()) {
    reg.unlock();
    why = rule;
    return kUnackable;
  }
  const std::uint32_t s = p->drom_seq.load();
  p->drom_seq.store(s + 1, std::memory_order_relaxed);  // odd: being written
  std::atomic_thread_fence(std::memory_order_release);
  for (int i = 0; i < kMaskWords; ++i) p->drom_mask[i].store(mask[i], std::memory_order_relaxed);
  p->drom_seq.store(s + 2, std::memory_order_release);
  reg.unlock();
  return long(s + 2);
}

bool DromMailbox::wait(pid_t pid, std::uint32_t seq, unsigned timeout_ms) {
  const int slot = table_.registry().find_slot(pid);
  if (slot < 0) return false;
  ShmProc& p = table_.segment()->procs[slot];
  const std::uint64_t deadline = monotonic_ns() + std::uint64_t(timeout_ms) * 1'000'000ull;
  for (;;) {
    const std::uint32_t ack = p.drom_ack.load(std::memory_order_acquire);
    if (std::int32_t(ack - seq) >= 0) return true;
    if (!process_alive(pid, p.start_time)) return false;
    const std::uint64_t now = monotonic_ns();
    if (now >= deadline) return false;
    futex_wait(&p.drom_ack, ack, unsigned(std::min<std::uint64_t>((deadline - now) / 1000, 20000)));
  }
}

bool DromMailbox::poll(int slot, std::uint32_t& last, std::vector<int>& cpus) const {
  if (slot < 0) return false;
  const ShmProc& p = table_.segment()->procs[slot];
  for (;;) {
    const std::uint32_t s1 = p.drom_seq.load(std::memory_order_acquire);
    if (s1 == last || (s1 & 1)) return false;
    std::uint64_t mask[kMaskWords];
    for (int i = 0; i < kMaskWords; ++i) mask[i] = p.drom_mask[i].load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (p.drom_seq.load(std::memory_order_relaxed) != s1) continue;
    cpus.clear();
    for (int cpu = 0; cpu < table_.ncpus(); ++cpu)
      if (mask[cpu / 64] >> (cpu % 64) & 1) cpus.push_back(cpu);
    last = s1;
    return true;
  }
}

void DromMailbox::ack(int slot, std::uint32_t seq, int failed_cpu) noexcept {
  if (slot < 0) return;
  ShmProc& p = table_.segment()->procs[slot];
  p.drom_error.store(std::uint32_t(failed_cpu + 1));
  p.drom_ack.store(seq, std::memory_order_release);
  futex_wake(&p.drom_ack, INT_MAX);
}

}  // namespace joule::lending
