// An n x n matrix stored as nb x nb contiguous bs x bs blocks (row-major
// inside a block, blocks row-major), the layout the task graphs update.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>

#include "graph.hpp"

namespace blocked {

class TiledMatrix {
 public:
  // n must be a multiple of bs.
  TiledMatrix(std::size_t n, std::size_t bs);

  std::size_t n() const { return n_; }
  std::size_t block_size() const { return bs_; }
  std::size_t blocks() const { return nb_; }
  std::size_t block_elems() const { return bs_ * bs_; }

  double* block(std::size_t row, std::size_t col) {
    return data_.get() + (row * nb_ + col) * block_elems();
  }
  const double* block(std::size_t row, std::size_t col) const {
    return data_.get() + (row * nb_ + col) * block_elems();
  }
  double* block(BlockRef b) { return block(b.row, b.col); }

  // Element (r, c) of the whole matrix.
  double at(std::size_t r, std::size_t c) const {
    return block(r / bs_, c / bs_)[(r % bs_) * bs_ + c % bs_];
  }

  // Fills the input of `app`: diagonally dominant for LU, symmetric positive
  // definite for Cholesky, the same every time (no pivoting needed).
  void fill(App app);

  // max |A - L U| (or |A - L L^T| over the lower triangle) on a sample of
  // rows, relative to max |A|, with A recomputed from fill()'s formula.
  double factor_error(App app) const;

 private:
  struct Free {
    void operator()(double* p) const { std::free(p); }
  };
  std::size_t n_;
  std::size_t bs_;
  std::size_t nb_;
  std::unique_ptr<double[], Free> data_;
};

}  // namespace blocked
