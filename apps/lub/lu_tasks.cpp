#include "lu_tasks.hpp"

#include <joule/joule.hpp>

#include "lu_kernels.hpp"
#include "lu_panel.hpp"

namespace lub {

const char* const kVariant = "C++ API tasks";

namespace {

// The tasks of step k: the diagonal block, its row and column panels, and the
// trailing update. Dependencies alone order them against steps k-1 and k+1.
std::size_t spawn_step(BlockMatrix& m, std::size_t k) {
  const std::size_t nb = m.blocks();
  const std::size_t bs = m.block_size();
  const std::size_t elems = m.block_elems();
  const double* diag = m.block(k, k);
  spawn_diagonal_and_row(m, k);
  for (std::size_t i = k + 1; i < nb; ++i) {
    double* col = m.block(i, k);
    joule::spawn(
        {joule::in(diag, elems), joule::inout(col, elems)}, [=] { bdiv(diag, col, bs); }, kBdiv);
  }
  for (std::size_t i = k + 1; i < nb; ++i) {
    for (std::size_t j = k + 1; j < nb; ++j) {
      const double* a = m.block(i, k);
      const double* b = m.block(k, j);
      double* c = m.block(i, j);
      joule::spawn(
          {joule::in(a, elems), joule::in(b, elems), joule::inout(c, elems)},
          [=] { bmod(a, b, c, bs); }, kBmod);
    }
  }
  const std::size_t rest = nb - k - 1;
  return 1 + 2 * rest + rest * rest;
}

}  // namespace

std::size_t factorize(BlockMatrix& m) {
  std::size_t tasks = 0;
  for (std::size_t k = 0; k < m.blocks(); ++k) tasks += spawn_step(m, k);
  joule::taskwait();
  return tasks;
}

}  // namespace lub
