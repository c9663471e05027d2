#include "lu_mpi.hpp"

#include <joule/joule.hpp>

#include <climits>
#include <stdexcept>
#include <vector>

#include "lu_kernels.hpp"
#include "lu_panel.hpp"

namespace lub {
namespace {

// Row k's diagonal block and its panel to the right, then a wait for them
// only (earlier updates of other rows keep running).
std::size_t factor_own_row(BlockMatrix& m, std::size_t k) {
  const std::size_t nb = m.blocks(), elems = m.block_elems();
  double* diag = m.block(k, k);
  spawn_diagonal_and_row(m, k);
  joule::taskwait_on({joule::in(diag, (nb - k) * elems)});
  return nb - k;
}

// The updates of this rank's rows below k with the (now final) row k.
std::size_t update_own_rows(BlockMatrix& m, std::size_t k, int rank, int ranks) {
  const std::size_t nb = m.blocks(), bs = m.block_size(), elems = m.block_elems();
  const double* diag = m.block(k, k);
  std::size_t tasks = 0;
  for (std::size_t i = k + 1; i < nb; ++i) {
    if (int(i % std::size_t(ranks)) != rank) continue;
    double* col = m.block(i, k);
    joule::spawn(
        {joule::in(diag, elems), joule::inout(col, elems)}, [=] { bdiv(diag, col, bs); }, kBdiv);
    for (std::size_t j = k + 1; j < nb; ++j) {
      const double* b = m.block(k, j);
      double* c = m.block(i, j);
      joule::spawn(
          {joule::in(col, elems), joule::in(b, elems), joule::inout(c, elems)},
          [=] { bmod(col, b, c, bs); }, kBmod);
    }
    tasks += nb - k;
  }
  return tasks;
}

int count_of(std::size_t doubles) {
  if (doubles > std::size_t(INT_MAX))
    throw std::invalid_argument("lub_mpi: block row too large for one message");
  return int(doubles);
}

}  // namespace

std::size_t factorize_distributed(BlockMatrix& m, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const std::size_t nb = m.blocks(), elems = m.block_elems();
  std::size_t tasks = 0;
  for (std::size_t k = 0; k < nb; ++k) {
    const int owner = int(k % std::size_t(ranks));
    if (owner == rank) tasks += factor_own_row(m, k);
    // Row k from its diagonal block on is contiguous (block-row-major storage).
    MPI_Bcast(m.block(k, k), count_of((nb - k) * elems), MPI_DOUBLE, owner, comm);
    tasks += update_own_rows(m, k, rank, ranks);
  }
  joule::taskwait();
  return tasks;
}

void gather_rows(BlockMatrix& m, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const std::size_t nb = m.blocks(), elems = m.block_elems();
  for (std::size_t i = 0; i < nb; ++i) {
    const int owner = int(i % std::size_t(ranks));
    if (owner == 0) continue;
    const int count = count_of(nb * elems);
    if (rank == owner) MPI_Send(m.block(i, 0), count, MPI_DOUBLE, 0, int(i), comm);
    if (rank == 0)
      MPI_Recv(m.block(i, 0), count, MPI_DOUBLE, owner, int(i), comm, MPI_STATUS_IGNORE);
  }
}

}  // namespace lub
