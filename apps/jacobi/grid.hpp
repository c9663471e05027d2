// The 2-D Jacobi problem every runtime's version solves: an (n+2) x (n+2)
// grid (n x n interior plus a fixed boundary), row-major, in two buffers that
// swap roles every iteration. The interior is split into nb x nb square
// blocks of bs x bs points; one block's sweep is one task.
//
// Work per task and uneven costs (EnergyLB's workload): every block sweeps
// `sweeps` times per iteration, and the first `heavy_blocks` blocks in
// row-major order `imbalance` times as often. A sweep only reads the source
// buffer and writes the destination block, so repeating it gives the same
// result: the answer depends on neither, only the work does. Repeats of one
// block find it in cache, so a block that fits in L2/L3 (e.g. 512 x 512)
// makes a heavy block's cost proportional to its sweeps.
#pragma once

#include <cstddef>
#include <vector>

namespace jacobi {

struct Problem {
  std::size_t n = 2048;
  std::size_t bs = 512;
  int iterations = 100;
  int sweeps = 1;     // sweeps of a block per iteration
  int imbalance = 1;  // how many times more a heavy block sweeps
  std::size_t heavy_blocks = 1;

  std::size_t blocks_per_side() const { return n / bs; }
  std::size_t blocks() const { return blocks_per_side() * blocks_per_side(); }
  // Sweeps block b (row-major block index) does per iteration.
  int sweeps_of(std::size_t b) const { return b < heavy_blocks ? sweeps * imbalance : sweeps; }
  // Floating-point operations of the whole run (4 per point per sweep).
  double flops() const;
};

class Grid {
 public:
  explicit Grid(std::size_t n);

  std::size_t n() const { return n_; }
  std::size_t ld() const { return n_ + 2; }
  // Buffer 0 or 1; element (i, j), 0 <= i, j <= n + 1.
  double* buffer(int which) { return which == 0 ? a_.data() : b_.data(); }
  const double* buffer(int which) const { return which == 0 ? a_.data() : b_.data(); }
  // The first interior point of block (bi, bj) in a buffer: the address the
  // task versions name in their dependencies.
  double* block_origin(int which, std::size_t bi, std::size_t bj, std::size_t bs);

  // Boundary: 1 on the top edge, 0 elsewhere; interior 0. Both buffers.
  void fill();
  // max |this - other| over the interior of buffer `which` of both.
  double max_difference(const Grid& other, int which) const;

 private:
  std::size_t n_;
  std::vector<double> a_;
  std::vector<double> b_;
};

// One sweep of block (bi, bj): dst = average of src's four neighbours,
// repeated `sweeps` times. Out of line so that every runtime calls the same
// machine code.
[[gnu::noinline]] void sweep_block(const double* src, double* dst, std::size_t ld, std::size_t bi,
                                   std::size_t bj, std::size_t bs, int sweeps);

// The reference: every block of every iteration in order, one thread. The
// result ends in buffer result_buffer(p).
void solve_sequential(Grid& g, const Problem& p);
inline int result_buffer(const Problem& p) { return p.iterations % 2; }

}  // namespace jacobi
