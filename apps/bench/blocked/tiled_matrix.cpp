#include "tiled_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <vector>

#include "kernels.hpp"

namespace blocked {
namespace {

// A value in [0, 1) from the element's coordinates (splitmix64 finaliser):
// deterministic and independent of the block size.
double noise(std::uint64_t r, std::uint64_t c) {
  std::uint64_t z = r * 0x9E3779B97F4A7C15ull + c + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

// The input element (r, c). A diagonal of n + 1 makes both matrices strictly
// diagonally dominant; the Cholesky one is also symmetric, hence SPD.
double input_value(App app, std::size_t n, std::size_t r, std::size_t c) {
  const double diag = r == c ? static_cast<double>(n) + 1.0 : 0.0;
  if (app == App::cholesky) return noise(std::min(r, c), std::max(r, c)) + diag;
  return noise(r, c) + diag;
}

// The rows the check looks at: evenly spread, first and last included.
std::vector<std::size_t> sample_rows(std::size_t n) {
  const std::size_t count = std::min<std::size_t>(n, 32);
  std::vector<std::size_t> rows;
  for (std::size_t s = 0; s < count; ++s)
    rows.push_back(count == 1 ? 0 : s * (n - 1) / (count - 1));
  return rows;
}

// (L U)(r, c) with L unit lower and U upper, both read from the dense
// factored matrix f; ft is its transpose (so columns of U are rows of ft).
double lu_product(const std::vector<double>& f, const std::vector<double>& ft, std::size_t n,
                  std::size_t r, std::size_t c) {
  const std::size_t m = std::min(r, c);
  const double* lrow = f.data() + r * n;
  const double* ucol = ft.data() + c * n;
  double sum = 0.0;
  for (std::size_t k = 0; k < m; ++k) sum += lrow[k] * ucol[k];
  return sum + (r <= c ? ucol[m] : lrow[m] * ucol[m]);  // k = m: L(r,r) = 1 or U(c,c)
}

// (L L^T)(r, c) for c <= r: rows r and c of L up to column c.
double llt_product(const std::vector<double>& f, std::size_t n, std::size_t r, std::size_t c) {
  const double* a = f.data() + r * n;
  const double* b = f.data() + c * n;
  double sum = 0.0;
  for (std::size_t k = 0; k <= c; ++k) sum += a[k] * b[k];
  return sum;
}

}  // namespace

TiledMatrix::TiledMatrix(std::size_t n, std::size_t bs) : n_(n), bs_(bs), nb_(bs ? n / bs : 0) {
  if (bs == 0 || n == 0 || n % bs != 0) throw std::invalid_argument("n must be a multiple of bs");
  const std::size_t bytes = n * n * sizeof(double);
  // Tiles start on a page, so their place relative to the kernels' scratch
  // tile is fixed (chol_kernels.cpp, scratch).
  data_.reset(static_cast<double*>(std::aligned_alloc(kPage, (bytes + kPage - 1) / kPage * kPage)));
  if (!data_) throw std::bad_alloc();
}

void TiledMatrix::fill(App app) {
  for (std::size_t bi = 0; bi < nb_; ++bi) {
    for (std::size_t bj = 0; bj < nb_; ++bj) {
      double* b = block(bi, bj);
      for (std::size_t i = 0; i < bs_; ++i) {
        for (std::size_t j = 0; j < bs_; ++j) {
          b[i * bs_ + j] = input_value(app, n_, bi * bs_ + i, bj * bs_ + j);
        }
      }
    }
  }
}

double TiledMatrix::factor_error(App app) const {
  std::vector<double> f(n_ * n_), ft(app == App::lu ? n_ * n_ : 0);
  for (std::size_t r = 0; r < n_; ++r) {
    for (std::size_t c = 0; c < n_; ++c) f[r * n_ + c] = at(r, c);
  }
  for (std::size_t r = 0; r < n_ && !ft.empty(); ++r) {
    for (std::size_t c = 0; c < n_; ++c) ft[c * n_ + r] = f[r * n_ + c];
  }
  double worst = 0.0;
  for (std::size_t r : sample_rows(n_)) {
    const std::size_t cols = app == App::lu ? n_ : r + 1;
    for (std::size_t c = 0; c < cols; ++c) {
      const double got = app == App::lu ? lu_product(f, ft, n_, r, c) : llt_product(f, n_, r, c);
      worst = std::max(worst, std::fabs(got - input_value(app, n_, r, c)));
    }
  }
  return worst / (static_cast<double>(n_) + 2.0);  // max |A| < n + 2
}

}  // namespace blocked
