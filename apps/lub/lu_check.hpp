// The residual check shared by lub's executables (lu_check.cpp).
#pragma once

#include "block_matrix.hpp"

namespace lub {

// ||A - L*U||_max / ||A||_max for the original matrix a and its factors lu.
// L*U is rebuilt block by block (as joule tasks) with the same bmod kernel.
double relative_residual(const BlockMatrix& a, const BlockMatrix& lu);

}  // namespace lub
