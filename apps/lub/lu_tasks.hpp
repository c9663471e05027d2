// The blocked LU factorisation as a joule task graph, and its residual check.
#pragma once

#include <cstddef>

#include "block_matrix.hpp"

namespace lub {

// Factorises m in place into L\U (no pivoting). Spawns one task per block
// kernel, with in/inout dependencies on the blocks, and waits for all of them.
// Returns the number of tasks spawned.
std::size_t factorize(BlockMatrix& m);

// ||A - L*U||_max / ||A||_max for the original matrix a and its factors lu.
// L*U is rebuilt block by block (as tasks) with the same bmod kernel.
double relative_residual(const BlockMatrix& a, const BlockMatrix& lu);

}  // namespace lub
