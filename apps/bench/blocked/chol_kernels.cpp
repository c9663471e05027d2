// Cholesky kernels. The products with a transposed tile (a b^T) are dot
// products of rows, which compilers do not vectorise without reassociation;
// so the transposed operand is first copied into a per-thread scratch tile
// (O(bs^2) against O(bs^3) work) and the update runs along rows like bmod.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <new>

#include "kernels.hpp"

namespace blocked {
namespace {

// Per-thread scratch tile, grown once: kernels run concurrently on many
// threads. Its place relative to the matrix's tiles is the same on every
// thread of every runtime: both start on a 4 KiB page (tiled_matrix.cpp)
// and the scratch half a row further, so no row of it shares its low 12
// address bits with a row of a tile. A load that matches an older store in
// those bits waits for it ("4K aliasing": Intel 64 and IA-32 Architectures
// Optimization Reference Manual; AMD Software Optimization Guide for Zen
// processors); left to malloc, the buffer's offset depended on the thread's
// arena, and a runtime's gemm bodies ran up to 20% faster or slower with it.
double* scratch(std::size_t bs) {
  struct Buffer {
    double* base = nullptr;
    std::size_t bytes = 0;
    ~Buffer() { std::free(base); }
  };
  thread_local Buffer buf;
  const std::size_t row = bs * sizeof(double);
  const std::size_t shift = std::min<std::size_t>(row, kPage) / 2;
  const std::size_t bytes = (bs * row + shift + kPage - 1) / kPage * kPage;
  if (buf.bytes < bytes) {
    std::free(buf.base);
    buf.base = static_cast<double*>(std::aligned_alloc(kPage, bytes));
    if (!buf.base) throw std::bad_alloc();
    buf.bytes = bytes;
  }
  return buf.base + shift / sizeof(double);
}

void transpose(const double* src, double* dst, std::size_t bs) {
  for (std::size_t i = 0; i < bs; ++i) {
    for (std::size_t j = 0; j < bs; ++j) dst[j * bs + i] = src[i * bs + j];
  }
}

}  // namespace

void potrf(double* diag, std::size_t bs) {
  // Right-looking: scale column k, then update the trailing lower triangle.
  for (std::size_t k = 0; k < bs; ++k) {
    const double d = std::sqrt(diag[k * bs + k]);
    diag[k * bs + k] = d;
    const double inv = 1.0 / d;
    for (std::size_t i = k + 1; i < bs; ++i) diag[i * bs + k] *= inv;
    for (std::size_t i = k + 1; i < bs; ++i) {
      double* __restrict row = diag + i * bs;
      const double lik = row[k];
      const double* __restrict col_k = diag + k;  // column k, stride bs
      for (std::size_t j = k + 1; j <= i; ++j) row[j] -= lik * col_k[j * bs];
    }
  }
}

void trsm(const double* diag, double* b, std::size_t bs) {
  // Each row x solves x L^T = row; with lt = L^T that is x lt = row, an upper
  // triangular solve along rows (as bdiv, with a non-unit diagonal).
  double* lt = scratch(bs);
  transpose(diag, lt, bs);
  for (std::size_t i = 0; i < bs; ++i) {
    double* __restrict x = b + i * bs;
    for (std::size_t k = 0; k < bs; ++k) {
      const double* __restrict u = lt + k * bs;
      const double xk = x[k] / u[k];
      x[k] = xk;
      for (std::size_t j = k + 1; j < bs; ++j) x[j] -= xk * u[j];
    }
  }
}

void syrk(const double* a, double* c, std::size_t bs) {
  double* at = scratch(bs);
  transpose(a, at, bs);
  for (std::size_t i = 0; i < bs; ++i) {
    double* __restrict ci = c + i * bs;
    const double* __restrict ai = a + i * bs;
    for (std::size_t k = 0; k < bs; ++k) {
      const double f = ai[k];
      const double* __restrict atk = at + k * bs;
      for (std::size_t j = 0; j <= i; ++j) ci[j] -= f * atk[j];
    }
  }
}

void gemm(const double* a, const double* b, double* c, std::size_t bs) {
  double* bt = scratch(bs);
  transpose(b, bt, bs);
  for (std::size_t i = 0; i < bs; ++i) {
    double* __restrict ci = c + i * bs;
    const double* __restrict ai = a + i * bs;
    for (std::size_t k = 0; k < bs; ++k) {
      const double f = ai[k];
      const double* __restrict btk = bt + k * bs;
      for (std::size_t j = 0; j < bs; ++j) ci[j] -= f * btk[j];
    }
  }
}

}  // namespace blocked
