// An application's hints to its lending session, as DLB's enable, disable,
// single, parallel and max-parallelism calls give them: whether the process
// lends and borrows at all, or runs on one CPU only, and a cap on how many
// CPUs it runs on. Read at every task boundary and on every borrow, written
// only when the application changes its mind; what a change does to CPUs
// already held is the session's business (Session::set_hint).
#pragma once

#include <atomic>
#include <cstdint>

namespace joule::lending {

enum class Hint : std::uint8_t { Enabled, Disabled, Single };

class Hints {
 public:
  Hint hint() const noexcept { return hint_.load(std::memory_order_relaxed); }
  // Sets h and returns the one before. With Single, `cpu` (the caller's) is
  // the CPU kept, stored before any worker can see Single.
  Hint exchange(Hint h, int cpu) noexcept {
    if (h == Hint::Single) single_cpu_.store(cpu);
    return hint_.exchange(h);
  }
  int single_cpu() const noexcept { return single_cpu_.load(); }

  int max_parallelism() const noexcept { return max_par_.load(std::memory_order_relaxed); }
  void set_max_parallelism(int n) noexcept { max_par_.store(n > 0 ? n : 0); }  // <= 0: no cap

 private:
  std::atomic<Hint> hint_{Hint::Enabled};
  std::atomic<int> max_par_{0};
  std::atomic<int> single_cpu_{-1};  // the CPU kept by the single hint
};

}  // namespace joule::lending
