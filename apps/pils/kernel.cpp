#include "kernel.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>

namespace pils {

double compute(std::uint64_t iters) {
  double x = 1.0, y = 0.5;
  for (std::uint64_t i = 0; i < iters; ++i) {
    x = x * 0.999999999 + 1e-9;  // one dependent chain: the same speed everywhere
    y = y * 1.000000001 - 1e-9;
  }
  return x + y;
}

double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// Measured in CPU time of the calling thread, best of five: on a shared
// machine the wall clock includes other people's work, the CPU time does not.
double calibrate(int ms) {
  auto cpu_s = [] {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
  };
  std::uint64_t iters = 1 << 16;
  volatile double sink = 0;
  double best = 0;
  for (int trial = 0; trial < 5;) {
    const double t0 = cpu_s();
    sink = sink + compute(iters);
    const double dt = cpu_s() - t0;
    if (dt * 1000.0 * 5 < ms) {
      iters *= 2;
      continue;
    }
    best = std::max(best, double(iters) / (dt * 1e6));
    ++trial;
  }
  return best;
}

}  // namespace pils
