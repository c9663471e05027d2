// The one clock of the runtime: monotonic nanoseconds (CLOCK_MONOTONIC),
// shared by the engine, observers, traces and the platform layer.
#pragma once

#include <time.h>

#include <cstdint>

namespace joule::core {

inline std::uint64_t now_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::uint64_t(ts.tv_sec) * 1000000000ull + std::uint64_t(ts.tv_nsec);
}

}  // namespace joule::core
