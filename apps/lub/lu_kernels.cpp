#include "lu_kernels.hpp"

namespace lub {

void lu0(double* a, std::size_t bs) {
  for (std::size_t k = 0; k < bs; ++k) {
    const double* __restrict pivot_row = a + k * bs;
    const double inv_pivot = 1.0 / pivot_row[k];
    for (std::size_t i = k + 1; i < bs; ++i) {
      double* __restrict row = a + i * bs;
      const double l = row[k] * inv_pivot;
      row[k] = l;
      for (std::size_t j = k + 1; j < bs; ++j) row[j] -= l * pivot_row[j];
    }
  }
}

void fwd(const double* diag, double* b, std::size_t bs) {
  // Forward substitution by rows: row i subtracts the already solved rows k < i.
  for (std::size_t i = 1; i < bs; ++i) {
    double* __restrict bi = b + i * bs;
    for (std::size_t k = 0; k < i; ++k) {
      const double l = diag[i * bs + k];
      const double* __restrict bk = b + k * bs;
      for (std::size_t j = 0; j < bs; ++j) bi[j] -= l * bk[j];
    }
  }
}

void bdiv(const double* diag, double* b, std::size_t bs) {
  // Each row x of the block solves x * U = b independently, left to right.
  for (std::size_t i = 0; i < bs; ++i) {
    double* __restrict x = b + i * bs;
    for (std::size_t k = 0; k < bs; ++k) {
      const double* __restrict u_row = diag + k * bs;
      const double xk = x[k] / u_row[k];
      x[k] = xk;
      for (std::size_t j = k + 1; j < bs; ++j) x[j] -= xk * u_row[j];
    }
  }
}

void bmod(const double* a, const double* b, double* c, std::size_t bs) {
  for (std::size_t i = 0; i < bs; ++i) {
    double* __restrict ci = c + i * bs;
    const double* __restrict ai = a + i * bs;
    for (std::size_t k = 0; k < bs; ++k) {
      const double aik = ai[k];
      const double* __restrict bk = b + k * bs;
      for (std::size_t j = 0; j < bs; ++j) ci[j] -= aik * bk[j];
    }
  }
}

void unit_lower_of(const double* diag, double* out, std::size_t bs) {
  for (std::size_t i = 0; i < bs; ++i) {
    for (std::size_t j = 0; j < bs; ++j) {
      out[i * bs + j] = j < i ? diag[i * bs + j] : (i == j ? 1.0 : 0.0);
    }
  }
}

void upper_of(const double* diag, double* out, std::size_t bs) {
  for (std::size_t i = 0; i < bs; ++i) {
    for (std::size_t j = 0; j < bs; ++j) out[i * bs + j] = j >= i ? diag[i * bs + j] : 0.0;
  }
}

}  // namespace lub
