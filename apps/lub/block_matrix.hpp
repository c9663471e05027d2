// A square matrix stored as nb x nb blocks of bs x bs doubles, each block
// contiguous and row-major, so a block is exactly one dependency region.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace lub {

// Cache-line aligned storage. std::vector's default alignment puts a large
// array 16 bytes into a line, and with AVX2 every other 32-byte load of the
// kernels then spans two lines: lub's task bodies ran about a third slower than the
// same kernels on 64-byte aligned blocks (apps/bench/blocked).
template <class T>
struct LineAligned {
  using value_type = T;
  static constexpr std::align_val_t kAlign{64};
  LineAligned() = default;
  template <class U>
  LineAligned(const LineAligned<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlign)); }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, kAlign); }
  bool operator==(const LineAligned&) const noexcept { return true; }
};

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
  std::vector<double, LineAligned<double>> data_;
};

}  // namespace lub
