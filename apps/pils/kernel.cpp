#include "kernel.hpp"

#include <chrono>

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

double calibrate(int ms) {
  std::uint64_t iters = 1 << 16;
  volatile double sink = 0;
  for (;;) {
    const double t0 = now_s();
    sink = sink + compute(iters);
    const double dt = now_s() - t0;
    if (dt * 1000.0 >= ms) return double(iters) / (dt * 1e6);
    iters *= 2;
  }
}

}  // namespace pils
