// PILS's compute kernel: a fixed-cost chain of floating-point operations on
// no data (so that only CPU time matters), calibrated in iterations per
// microsecond on this machine.
#pragma once

#include <cstdint>

namespace pils {

// Runs `iters` dependent multiply-adds; returns the result so the compiler
// cannot drop the loop.
double compute(std::uint64_t iters);

// Iterations of compute() per microsecond of CPU time, measured over about `ms`.
double calibrate(int ms);

double now_s();

}  // namespace pils
