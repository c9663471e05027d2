// The few operating-system services the CPU table needs: telling a live
// process from a dead one (or from a new one that reuses its pid), and
// futexes on shared memory that wake threads of any process.
#pragma once

#include <sys/types.h>
#include <atomic>
#include <cstdint>
#include <string>

namespace joule::lending {

// A participant of the CPU table is a process or one of the subprocess
// handles of DLB's dlb_sp.h that a process opens: the pid in the low 22
// bits (Linux's pid_max is at most 2^22), the handle's number above them.
// The functions below take either and look at the process.
constexpr int kOsPidBits = 22;
constexpr pid_t os_pid(pid_t participant) noexcept {
  return participant & ((pid_t(1) << kOsPidBits) - 1);
}

// Start time of `pid` in clock ticks since boot (/proc/<pid>/stat field 22),
// or 0 when it cannot be read.
std::uint64_t process_start_time(pid_t pid);

// kill(pid, 0) says the pid exists (EPERM counts as existing).
bool pid_exists(pid_t pid);

// The pid exists and, when start_time is known, is the same process.
bool process_alive(pid_t pid, std::uint64_t start_time);

// The short command name of `pid` (/proc/<pid>/comm), or "".
std::string process_comm(pid_t pid);

// Waits while *word == expected, at most timeout_us (0: do not wait).
// Shared futex (no FUTEX_PRIVATE_FLAG): works across processes.
void futex_wait(std::atomic<std::uint32_t>* word, std::uint32_t expected, unsigned timeout_us);
void futex_wake(std::atomic<std::uint32_t>* word, int n);

std::uint64_t monotonic_ns();

// The CPU the calling thread runs on. Workers and ranks are pinned, so the
// CPU a thread runs on is its CPU; sched_getcpu is a vDSO call, unlike
// reading the affinity.
int current_cpu();

}  // namespace joule::lending
