// The residual check shared by lub's variants: ||A - L*U||_max / ||A||_max,
// with L*U rebuilt block by block (as joule tasks) with the same bmod kernel.
#include <joule/joule.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "lu_check.hpp"
#include "lu_kernels.hpp"

namespace lub {
namespace {

// max |A_ij - (L*U)_ij| over block (i, j): starts from A_ij and subtracts
// L_ik * U_kj for k <= min(i, j), using the triangles of the diagonal blocks.
double block_residual(const BlockMatrix& a, const BlockMatrix& lu, std::size_t i, std::size_t j) {
  const std::size_t bs = a.block_size();
  const std::size_t elems = a.block_elems();
  std::vector<double> r(a.block(i, j), a.block(i, j) + elems);
  std::vector<double> tri(elems);
  const std::size_t last = std::min(i, j);
  for (std::size_t k = 0; k < last; ++k) bmod(lu.block(i, k), lu.block(k, j), r.data(), bs);
  if (i == j) {
    std::vector<double> upper(elems);
    unit_lower_of(lu.block(i, i), tri.data(), bs);
    upper_of(lu.block(i, i), upper.data(), bs);
    bmod(tri.data(), upper.data(), r.data(), bs);
  } else if (i < j) {  // k = i: unit-lower L_ii times the full U block (i, j)
    unit_lower_of(lu.block(i, i), tri.data(), bs);
    bmod(tri.data(), lu.block(i, j), r.data(), bs);
  } else {  // k = j: the full L block (i, j) times upper U_jj
    upper_of(lu.block(j, j), tri.data(), bs);
    bmod(lu.block(i, j), tri.data(), r.data(), bs);
  }
  double worst = 0.0;
  for (double v : r) worst = std::max(worst, std::fabs(v));
  return worst;
}

}  // namespace

double relative_residual(const BlockMatrix& a, const BlockMatrix& lu) {
  const std::size_t nb = a.blocks();
  std::vector<double> worst(nb * nb, 0.0);
  joule::parallel_for(std::size_t{0}, nb * nb,
                      [&](std::size_t b) { worst[b] = block_residual(a, lu, b / nb, b % nb); });
  const double norm = a.max_abs();
  const double diff = *std::max_element(worst.begin(), worst.end());
  return norm > 0.0 ? diff / norm : diff;
}

}  // namespace lub
