// Included by minife_kernels.hpp by a path relative to it: still found when
// joulecc compiles the translated copy of minife_kernels.hpp.
#pragma once

#include <cstddef>

namespace minife {
namespace detail {
inline void ramp(double *v, std::size_t len, std::size_t first) {
  for (std::size_t k = 0; k < len; ++k) v[k] = static_cast<double>(first + k) * 0.5;
}
}  // namespace detail
}  // namespace minife
