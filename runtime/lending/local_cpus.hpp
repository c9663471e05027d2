// What only this process knows about each CPU of the table: whether its
// worker there runs, sleeps holding the CPU (policy mpi) or lent it for a
// blocking call, and whether the CPU may never be lent at all (two workers
// share it: JOULE_WORKERS above the CPUs). One atomic per CPU, so workers,
// blocking calls and DROM update them without a lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "shm_layout.hpp"

namespace joule::lending {

class LocalCpus {
 public:
  enum State : std::uint8_t { kRunning = 0, kSleeping = 1, kBlockLent = 2 };

  LocalCpus()
      : state_(new std::atomic<std::uint8_t>[std::size_t(kMaxCpus)]),
        never_lend_(new std::atomic<bool>[std::size_t(kMaxCpus)]) {
    for (int i = 0; i < kMaxCpus; ++i) {
      state_[i].store(kRunning, std::memory_order_relaxed);
      never_lend_[i].store(false, std::memory_order_relaxed);
    }
  }

  std::atomic<std::uint8_t>& operator[](int cpu) noexcept { return state_[cpu]; }
  bool no_lend(int cpu) const noexcept { return never_lend_[cpu].load(); }
  void never_lend(int cpu) noexcept {
    if (cpu >= 0 && cpu < kMaxCpus) never_lend_[cpu].store(true);
  }

 private:
  std::unique_ptr<std::atomic<std::uint8_t>[]> state_;
  std::unique_ptr<std::atomic<bool>[]> never_lend_;
};

}  // namespace joule::lending
