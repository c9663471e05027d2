// A square matrix stored as nb x nb blocks of bs x bs doubles, each block
// contiguous and row-major, so a block is exactly one dependency region.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace lub {

class BlockMatrix {
 public:
  BlockMatrix(std::size_t n_blocks, std::size_t block_size);

  std::size_t blocks() const noexcept { return nb_; }
  std::size_t block_size() const noexcept { return bs_; }
  std::size_t block_elems() const noexcept { return bs_ * bs_; }
  std::size_t order() const noexcept { return nb_ * bs_; }

  double* block(std::size_t i, std::size_t j) noexcept {
    return data_.data() + (i * nb_ + j) * block_elems();
  }
  const double* block(std::size_t i, std::size_t j) const noexcept {
    return data_.data() + (i * nb_ + j) * block_elems();
  }

  // Entries in [0, 1) from a hash of (row, column, seed), plus order() on the
  // diagonal: strictly diagonally dominant, so LU without pivoting is stable.
  // Filled by blocks in parallel; the result does not depend on the order.
  void fill_diagonally_dominant(std::uint64_t seed);

  // max |a_ij| over the whole matrix.
  double max_abs() const noexcept;

 private:
  std::size_t nb_;
  std::size_t bs_;
  std::vector<double> data_;
};

}  // namespace lub
