#include "block_matrix.hpp"

#include <joule/joule.hpp>

#include <algorithm>
#include <cmath>

namespace lub {
namespace {

// splitmix64 finaliser: a cheap, well-mixed hash of one 64-bit word.
std::uint64_t mix(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double unit_random(std::uint64_t row, std::uint64_t col, std::uint64_t seed) noexcept {
  const std::uint64_t h = mix(mix(row ^ mix(seed)) + col);
  return static_cast<double>(h >> 11) * 0x1.0p-53;  // 53 random bits in [0, 1)
}

}  // namespace

BlockMatrix::BlockMatrix(std::size_t n_blocks, std::size_t block_size)
    : nb_(n_blocks), bs_(block_size), data_(n_blocks * n_blocks * block_size * block_size) {}

void BlockMatrix::fill_diagonally_dominant(std::uint64_t seed) {
  const double diagonal_boost = static_cast<double>(order());
  joule::parallel_for(std::size_t{0}, nb_ * nb_, [&](std::size_t b) {
    const std::size_t bi = b / nb_;
    const std::size_t bj = b % nb_;
    double* blk = block(bi, bj);
    for (std::size_t r = 0; r < bs_; ++r) {
      for (std::size_t c = 0; c < bs_; ++c) {
        const std::size_t row = bi * bs_ + r;
        const std::size_t col = bj * bs_ + c;
        double v = unit_random(row, col, seed);
        if (row == col) v += diagonal_boost;
        blk[r * bs_ + c] = v;
      }
    }
  });
}

double BlockMatrix::max_abs() const noexcept {
  double m = 0.0;
  for (double v : data_) m = std::max(m, std::fabs(v));
  return m;
}

}  // namespace lub
