#include "grid.hpp"

#include <algorithm>
#include <cmath>

namespace jacobi {

double Problem::flops() const {
  double total = 0;
  for (std::size_t b = 0; b < blocks(); ++b) total += sweeps_of(b);
  return 4.0 * double(bs) * double(bs) * total * double(iterations);
}

Grid::Grid(std::size_t n) : n_(n), a_((n + 2) * (n + 2)), b_((n + 2) * (n + 2)) {}

double* Grid::block_origin(int which, std::size_t bi, std::size_t bj, std::size_t bs) {
  return buffer(which) + (1 + bi * bs) * ld() + 1 + bj * bs;
}

void Grid::fill() {
  for (std::vector<double>* v : {&a_, &b_}) {
    std::fill(v->begin(), v->end(), 0.0);
    std::fill(v->begin(), v->begin() + std::ptrdiff_t(ld()), 1.0);
  }
}

double Grid::max_difference(const Grid& other, int which) const {
  const double* x = buffer(which);
  const double* y = other.buffer(which);
  double worst = 0;
  for (std::size_t i = 1; i <= n_; ++i)
    for (std::size_t j = 1; j <= n_; ++j)
      worst = std::max(worst, std::fabs(x[i * ld() + j] - y[i * ld() + j]));
  return worst;
}

void sweep_block(const double* __restrict src, double* __restrict dst, std::size_t ld,
                 std::size_t bi, std::size_t bj, std::size_t bs, int sweeps) {
  const std::size_t i0 = 1 + bi * bs;
  const std::size_t j0 = 1 + bj * bs;
  for (int s = 0; s < sweeps; ++s) {
    for (std::size_t i = i0; i < i0 + bs; ++i) {
      const double* up = src + (i - 1) * ld;
      const double* mid = src + i * ld;
      const double* down = src + (i + 1) * ld;
      double* out = dst + i * ld;
      for (std::size_t j = j0; j < j0 + bs; ++j)
        out[j] = 0.25 * (up[j] + down[j] + mid[j - 1] + mid[j + 1]);
    }
  }
}

void solve_sequential(Grid& g, const Problem& p) {
  const std::size_t nb = p.blocks_per_side();
  for (int it = 0; it < p.iterations; ++it) {
    const int src = it % 2;
    for (std::size_t bi = 0; bi < nb; ++bi)
      for (std::size_t bj = 0; bj < nb; ++bj)
        sweep_block(g.buffer(src), g.buffer(1 - src), g.ld(), bi, bj, p.bs, 1);
  }
}

}  // namespace jacobi
