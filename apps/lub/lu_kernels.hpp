// Block kernels of the right-looking blocked LU factorisation without
// pivoting. Every block is bs x bs doubles, row-major and contiguous, so one
// block is one dependency region. Names follow the LUB benchmark (lu0, fwd,
// bdiv, bmod); no BLAS, plain loops in i-k-j order so the inner loop runs
// along contiguous rows and vectorises.
#pragma once

#include <cstddef>

namespace lub {

// diag <- L\U in place (unit lower L below the diagonal, U on and above it).
void lu0(double* diag, std::size_t bs);

// row <- L^-1 * row, with L the unit lower triangle of the factored diag
// (blocks right of the diagonal block: they become U blocks).
void fwd(const double* diag, double* row, std::size_t bs);

// col <- col * U^-1, with U the upper triangle of the factored diag
// (blocks below the diagonal block: they become L blocks).
void bdiv(const double* diag, double* col, std::size_t bs);

// c <- c - a * b (trailing update).
void bmod(const double* a, const double* b, double* c, std::size_t bs);

// Copies of the triangles of a factored diagonal block, the other entries
// zeroed: used by the residual check to rebuild L*U with bmod.
void unit_lower_of(const double* diag, double* out, std::size_t bs);
void upper_of(const double* diag, double* out, std::size_t bs);

}  // namespace lub
