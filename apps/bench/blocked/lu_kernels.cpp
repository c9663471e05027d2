// LU kernels: every inner loop runs along a row (unit stride), so g++ and
// clang++ both vectorise them without -ffast-math.
#include "kernels.hpp"

namespace blocked {

void lu0(double* diag, std::size_t bs) {
  for (std::size_t k = 0; k < bs; ++k) {
    const double* __restrict pivot = diag + k * bs;
    const double inv = 1.0 / pivot[k];
    for (std::size_t i = k + 1; i < bs; ++i) {
      double* __restrict row = diag + i * bs;
      const double l = row[k] * inv;
      row[k] = l;
      for (std::size_t j = k + 1; j < bs; ++j) row[j] -= l * pivot[j];
    }
  }
}

void fwd(const double* diag, double* b, std::size_t bs) {
  // Row i of the result is row i of b minus the solved rows above it.
  for (std::size_t i = 1; i < bs; ++i) {
    double* __restrict out = b + i * bs;
    for (std::size_t k = 0; k < i; ++k) {
      const double l = diag[i * bs + k];
      const double* __restrict solved = b + k * bs;
      for (std::size_t j = 0; j < bs; ++j) out[j] -= l * solved[j];
    }
  }
}

void bdiv(const double* diag, double* b, std::size_t bs) {
  // Rows are independent: x U = row, solved left to right.
  for (std::size_t i = 0; i < bs; ++i) {
    double* __restrict x = b + i * bs;
    for (std::size_t k = 0; k < bs; ++k) {
      const double* __restrict u = diag + k * bs;
      const double xk = x[k] / u[k];
      x[k] = xk;
      for (std::size_t j = k + 1; j < bs; ++j) x[j] -= xk * u[j];
    }
  }
}

void bmod(const double* a, const double* b, double* c, std::size_t bs) {
  for (std::size_t i = 0; i < bs; ++i) {
    double* __restrict ci = c + i * bs;
    const double* __restrict ai = a + i * bs;
    for (std::size_t k = 0; k < bs; ++k) {
      const double f = ai[k];
      const double* __restrict bk = b + k * bs;
      for (std::size_t j = 0; j < bs; ++j) ci[j] -= f * bk[j];
    }
  }
}

}  // namespace blocked
