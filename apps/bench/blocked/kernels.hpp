// The block kernels of the application benchmarks. They live in their own
// translation units (the LU ones are apps/lub's) and are never inlined, so
// that every runtime built by one compiler calls the same machine code: differences in task-body
// time then come from execution order (cache reuse), not from code generation or from where a
// runtime's threads got their memory (see kPage). Blocks are bs x bs doubles, row-major and
// contiguous.
#pragma once

#include <cstddef>

#include "lu_kernels.hpp"  // apps/lub

namespace blocked {

// The matrix's tiles and each thread's scratch tile start on a page of this
// size, so every runtime's threads see one layout (chol_kernels.cpp).
inline constexpr std::size_t kPage = 4096;

// ---- LU without pivoting: apps/lub's kernels (lu0, fwd, bdiv, bmod) ------
using lub::bdiv;
using lub::bmod;
using lub::fwd;
using lub::lu0;

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
