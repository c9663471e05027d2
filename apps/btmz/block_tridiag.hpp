// The block-tridiagonal line solve at the heart of BT: along one grid line of
// n points, solve  L du[s-1] + D[s] du[s] + U du[s+1] = b[s]  with 5 x 5 blocks
// by block Gaussian elimination (the block Thomas algorithm, no pivoting: the
// blocks are diagonally dominant). du = 0 beyond both ends.
#pragma once

#include <vector>

namespace btmz {

struct LineCoefficients {
  double r;   // nu * dt / h^2: the off-diagonal blocks are -r * M
  double dt;  // scales the point-dependent part of D[s] (depends on u there)
};

// Scratch for one line (per thread): eliminated upper blocks and right-hand sides.
struct LineScratch {
  std::vector<double> upper;  // n x 25
  std::vector<double> rhs;    // n x 5
};

// u and b point at the line's first point; consecutive points are `stride`
// doubles apart, 5 components each. The solution overwrites b.
void solve_block_line(const double* u, double* b, long stride, int n, const LineCoefficients& c,
                      LineScratch& scratch);

// out = the block operator applied to x (same layout): the residual check.
void apply_block_line(const double* u, const double* x, long stride, int n,
                      const LineCoefficients& c, double* out);

}  // namespace btmz
