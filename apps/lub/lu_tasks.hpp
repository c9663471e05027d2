// The blocked LU factorisation as a joule task graph (lu_tasks.cpp, or the
// same graph from OmpSs pragmas in lu_ompss.cpp).
#pragma once

#include <cstddef>

#include "block_matrix.hpp"

namespace lub {

// Which implementation of factorize() this build links: the C++ API
// (lu_tasks.cpp) or OmpSs pragmas translated by joulecc (lu_ompss.cpp).
extern const char* const kVariant;

// Factorises m in place into L\U (no pivoting). Spawns one task per block
// kernel, with in/inout dependencies on the blocks, and waits for all of them.
// Returns the number of tasks spawned.
std::size_t factorize(BlockMatrix& m);

}  // namespace lub
