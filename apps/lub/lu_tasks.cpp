#include "lu_tasks.hpp"

#include <joule/joule.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "lu_kernels.hpp"

namespace lub {
namespace {

// Task-type labels: static strings, as task_options requires.
const joule::task_options kLu0{.label = "lu0", .priority = 2};
const joule::task_options kFwd{.label = "fwd", .priority = 1};
const joule::task_options kBdiv{.label = "bdiv", .priority = 1};
const joule::task_options kBmod{.label = "bmod"};

// The tasks of step k: the diagonal block, its row and column panels, and the
// trailing update. Dependencies alone order them against steps k-1 and k+1.
std::size_t spawn_step(BlockMatrix& m, std::size_t k) {
  const std::size_t nb = m.blocks();
  const std::size_t bs = m.block_size();
  const std::size_t elems = m.block_elems();
  double* diag = m.block(k, k);
  joule::spawn(
      {joule::inout(diag, elems)}, [=] { lu0(diag, bs); }, kLu0);
  for (std::size_t j = k + 1; j < nb; ++j) {
    double* row = m.block(k, j);
    joule::spawn(
        {joule::in(diag, elems), joule::inout(row, elems)}, [=] { fwd(diag, row, bs); }, kFwd);
  }
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

std::size_t factorize(BlockMatrix& m) {
  std::size_t tasks = 0;
  for (std::size_t k = 0; k < m.blocks(); ++k) tasks += spawn_step(m, k);
  joule::taskwait();
  return tasks;
}

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
