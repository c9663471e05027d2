// One zone's unknowns (5 per point, with one ghost layer on every side) and
// the ADI step's kernels. A step is five phases, each a loop over independent
// rows of the zone that any number of threads may split:
//   rhs  explicit right-hand side (7-point diffusion plus a coupling source)
//   x, y, z  block-tridiagonal (5 x 5 blocks) line solves along each axis
//   add  u += du
#pragma once

#include <array>
#include <vector>

#include "zones.hpp"

namespace btmz {

constexpr int kComponents = 5;

enum class Phase { rhs, solve_x, solve_y, solve_z, add };
constexpr std::array<Phase, 5> kPhases{Phase::rhs, Phase::solve_x, Phase::solve_y, Phase::solve_z,
                                       Phase::add};

struct Numerics {
  double dt = 0.8;
  double nu = 0.1;  // diffusion coefficient (grid spacing 1)
};

class ZoneField {
 public:
  ZoneField(const Zone& z, const ProblemClass& pc);

  const Zone& zone() const { return zone_; }
  // Rows of a phase: the independent units a thread may take.
  long rows(Phase p) const;
  // Runs rows [lo, hi) of a phase.
  void run(Phase p, long lo, long hi, const Numerics& num);

  // Ghost planes for the zone exchange: the interior plane next to face f
  // (what the neighbour across f needs), and this zone's ghost plane at f.
  // Both hold ny*nz (x faces) or nx*nz (y faces) points x 5 components.
  void pack_interior(Face f, double* out) const;
  void unpack_ghost(Face f, const double* in);

  // Sum of squares per component over the interior.
  std::array<double, kComponents> sum_squares() const;

 private:
  long at(int i, int j, int k) const {
    return ((long(k) * (zone_.ny + 2) + j) * (zone_.nx + 2) + i) * kComponents;
  }
  void rhs_row(int j, int k, const Numerics& num);
  void add_row(int j, int k);
  void solve_line(long first, long stride, int n, const Numerics& num);
  template <class F>
  void for_face(Face f, bool interior, F&& visit) const;

  Zone zone_;
  std::vector<double> u_;
  std::vector<double> du_;
};

}  // namespace btmz
