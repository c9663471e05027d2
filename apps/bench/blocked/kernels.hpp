// The block kernels of the application benchmarks. They live in their own
// translation units and are never inlined, so that every runtime built by one
// compiler calls the same machine code: differences in task-body time then
// come from execution order (cache reuse), not from code generation.
// Blocks are bs x bs doubles, row-major and contiguous.
#pragma once

#include <cstddef>

namespace blocked {

// ---- LU without pivoting (L unit lower, U upper, stored in place) ---------

// Factors the diagonal block in place.
[[gnu::noinline]] void lu0(double* diag, std::size_t bs);
// Row panel: b <- L^-1 b, L the unit lower triangle of diag.
[[gnu::noinline]] void fwd(const double* diag, double* b, std::size_t bs);
// Column panel: b <- b U^-1, U the upper triangle of diag.
[[gnu::noinline]] void bdiv(const double* diag, double* b, std::size_t bs);
// Trailing update: c <- c - a b.
[[gnu::noinline]] void bmod(const double* a, const double* b, double* c, std::size_t bs);

// ---- Cholesky, lower (A = L L^T; only the lower triangle is used) ---------

// Factors the diagonal tile in place (lower triangle).
[[gnu::noinline]] void potrf(double* diag, std::size_t bs);
// Panel: b <- b L^-T, L the lower triangle of diag.
[[gnu::noinline]] void trsm(const double* diag, double* b, std::size_t bs);
// Diagonal update: c <- c - a a^T (lower triangle of c).
[[gnu::noinline]] void syrk(const double* a, double* c, std::size_t bs);
// Off-diagonal update: c <- c - a b^T.
[[gnu::noinline]] void gemm(const double* a, const double* b, double* c, std::size_t bs);

}  // namespace blocked
