// The blocked LU over MPI ranks, as the DLB thesis's LUB: block rows are
// dealt out cyclically (row i on rank i % ranks). At step k the owner of row
// k factors its diagonal block and row panel (tasks), waits for them and
// broadcasts the row; every rank then updates its own rows below k with
// tasks. Workers keep running the previous steps' updates while the main
// thread waits in the broadcast, and with libjoule-mpi that wait lends CPUs.
#pragma once

#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include <cstddef>

#include "block_matrix.hpp"

namespace lub {

// Every rank holds the whole matrix and updates the rows it owns; after the
// call row k is final on every rank for every k it received or owned.
// Returns the number of tasks this rank spawned.
std::size_t factorize_distributed(BlockMatrix& m, MPI_Comm comm);

// Collects the rows owned by other ranks into rank 0's copy.
void gather_rows(BlockMatrix& m, MPI_Comm comm);

}  // namespace lub
