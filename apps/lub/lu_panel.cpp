#include "lu_panel.hpp"

#include "lu_kernels.hpp"

namespace lub {

void spawn_diagonal_and_row(BlockMatrix& m, std::size_t k) {
  const std::size_t nb = m.blocks(), bs = m.block_size(), elems = m.block_elems();
  double* diag = m.block(k, k);
  joule::spawn(
      {joule::inout(diag, elems)}, [=] { lu0(diag, bs); }, kLu0);
  for (std::size_t j = k + 1; j < nb; ++j) {
    double* row = m.block(k, j);
    joule::spawn(
        {joule::in(diag, elems), joule::inout(row, elems)}, [=] { fwd(diag, row, bs); }, kFwd);
  }
}

}  // namespace lub
