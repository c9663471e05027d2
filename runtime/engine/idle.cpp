#include "idle.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

namespace joule::engine {
namespace {

// A bounded sleep: an idle runtime wakes at most ten times a second, which
// costs nothing measurable and bounds the damage of any missed wake-up.
constexpr long kSleepNs = 100'000'000;

long futex(std::atomic<std::uint32_t>* word, int op, std::uint32_t val, const timespec* ts) {
  return syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), op, val, ts, nullptr, 0);
}

}  // namespace

void Idle::wait(std::uint32_t seen) noexcept {
  timespec ts{0, kSleepNs};
  futex(&epoch_, FUTEX_WAIT_PRIVATE, seen, &ts);
}

void Idle::signal(int n) noexcept {
  epoch_.fetch_add(1, std::memory_order_seq_cst);
  futex(&epoch_, FUTEX_WAKE_PRIVATE, static_cast<std::uint32_t>(n), nullptr);
}

}  // namespace joule::engine
