// The same blocked LU as lu_tasks.cpp, written as OmpSs users write it:
// function tasks whose dependencies are the blocks, shaped with the runtime
// block size ([bs * bs]p), and a taskwait. joulecc translates this file at
// build time (apps/lub/CMakeLists.txt); the kernels are the shared ones.
#include <cstddef>

#include "lu_kernels.hpp"
#include "lu_tasks.hpp"

namespace lub {

const char* const kVariant = "OmpSs pragmas through joulecc";

#pragma oss task inout([bs * bs] diag) label("lu0") priority(2)
void lu0_task(double* diag, std::size_t bs) { lu0(diag, bs); }

#pragma oss task in([bs * bs] diag) inout([bs * bs] row) label("fwd") priority(1)
void fwd_task(const double* diag, double* row, std::size_t bs) { fwd(diag, row, bs); }

#pragma oss task in([bs * bs] diag) inout([bs * bs] col) label("bdiv") priority(1)
void bdiv_task(const double* diag, double* col, std::size_t bs) { bdiv(diag, col, bs); }

#pragma oss task in([bs * bs] a, [bs * bs] b) inout([bs * bs] c) label("bmod")
void bmod_task(const double* a, const double* b, double* c, std::size_t bs) { bmod(a, b, c, bs); }

std::size_t factorize(BlockMatrix& m) {
  const std::size_t nb = m.blocks();
  const std::size_t bs = m.block_size();
  std::size_t tasks = 0;
  for (std::size_t k = 0; k < nb; ++k) {
    lu0_task(m.block(k, k), bs);
    for (std::size_t j = k + 1; j < nb; ++j) fwd_task(m.block(k, k), m.block(k, j), bs);
    for (std::size_t i = k + 1; i < nb; ++i) bdiv_task(m.block(k, k), m.block(i, k), bs);
    for (std::size_t i = k + 1; i < nb; ++i)
      for (std::size_t j = k + 1; j < nb; ++j)
        bmod_task(m.block(i, k), m.block(k, j), m.block(i, j), bs);
    const std::size_t rest = nb - k - 1;
    tasks += 1 + 2 * rest + rest * rest;
  }
#pragma oss taskwait
  return tasks;
}

}  // namespace lub
