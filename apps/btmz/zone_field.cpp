#include "zone_field.hpp"

#include <cmath>
#include <numbers>

#include "block_tridiag.hpp"

namespace btmz {
namespace {

// A smooth initial state in global coordinates; the z ghost planes keep it
// for the whole run (fixed boundaries), x and y ghosts come from neighbours.
double initial(int m, double x, double y, double z, const ProblemClass& pc) {
  const double pi = std::numbers::pi;
  return 1.0 + 0.1 * m +
         0.05 * std::sin(2 * pi * x / pc.gx) * std::cos(2 * pi * y / pc.gy) *
             std::sin(pi * (z + 1) / (pc.gz + 1)) * (1 + 0.2 * m);
}

LineScratch& scratch() {
  thread_local LineScratch s;
  return s;
}

}  // namespace

ZoneField::ZoneField(const Zone& z, const ProblemClass& pc) : zone_(z) {
  const std::size_t n = std::size_t(z.nx + 2) * std::size_t(z.ny + 2) * std::size_t(z.nz + 2);
  u_.resize(n * kComponents);
  du_.assign(n * kComponents, 0.0);
  for (int k = 0; k <= z.nz + 1; ++k)
    for (int j = 0; j <= z.ny + 1; ++j)
      for (int i = 0; i <= z.nx + 1; ++i)
        for (int m = 0; m < kComponents; ++m)
          u_[std::size_t(at(i, j, k) + m)] = initial(m, z.x0 + i - 1, z.y0 + j - 1, k - 1, pc);
}

long ZoneField::rows(Phase p) const {
  const long nx = zone_.nx, ny = zone_.ny, nz = zone_.nz;
  switch (p) {
    case Phase::solve_y:
      return nx * nz;
    case Phase::solve_z:
      return nx * ny;
    default:
      return ny * nz;  // rhs, solve_x, add: rows along x
  }
}

void ZoneField::run(Phase p, long lo, long hi, const Numerics& num) {
  const int nx = zone_.nx, ny = zone_.ny, nz = zone_.nz;
  for (long row = lo; row < hi; ++row) {
    switch (p) {
      case Phase::rhs:
        rhs_row(int(row % ny) + 1, int(row / ny) + 1, num);
        break;
      case Phase::add:
        add_row(int(row % ny) + 1, int(row / ny) + 1);
        break;
      case Phase::solve_x:
        solve_line(at(1, int(row % ny) + 1, int(row / ny) + 1), kComponents, nx, num);
        break;
      case Phase::solve_y:
        solve_line(at(int(row % nx) + 1, 1, int(row / nx) + 1), long(nx + 2) * kComponents, ny,
                   num);
        break;
      case Phase::solve_z:
        solve_line(at(int(row % nx) + 1, int(row / nx) + 1, 1),
                   long(nx + 2) * (ny + 2) * kComponents, nz, num);
        break;
    }
  }
}

void ZoneField::rhs_row(int j, int k, const Numerics& num) {
  const long sx = kComponents, sy = long(zone_.nx + 2) * sx, sz = long(zone_.ny + 2) * sy;
  for (int i = 1; i <= zone_.nx; ++i) {
    const double* u = u_.data() + at(i, j, k);
    double* du = du_.data() + at(i, j, k);
    for (int m = 0; m < kComponents; ++m) {
      const double lap =
          u[m + sx] + u[m - sx] + u[m + sy] + u[m - sy] + u[m + sz] + u[m - sz] - 6 * u[m];
      const double source = 0.1 * (u[(m + 1) % kComponents] - u[m]);
      du[m] = num.dt * (num.nu * lap + source);
    }
  }
}

void ZoneField::add_row(int j, int k) {
  const long first = at(1, j, k), last = at(zone_.nx, j, k) + kComponents;
  for (long p = first; p < last; ++p) u_[std::size_t(p)] += du_[std::size_t(p)];
}

void ZoneField::solve_line(long first, long stride, int n, const Numerics& num) {
  const LineCoefficients c{num.nu * num.dt, num.dt};
  solve_block_line(u_.data() + first, du_.data() + first, stride, n, c, scratch());
}

template <class F>
void ZoneField::for_face(Face f, bool interior, F&& visit) const {
  const int nx = zone_.nx, ny = zone_.ny, nz = zone_.nz;
  const bool x_face = f == kWest || f == kEast;
  int plane = 0;
  if (f == kWest) plane = interior ? 1 : 0;
  if (f == kEast) plane = interior ? nx : nx + 1;
  if (f == kSouth) plane = interior ? 1 : 0;
  if (f == kNorth) plane = interior ? ny : ny + 1;
  for (int k = 1; k <= nz; ++k) {
    if (x_face) {
      for (int j = 1; j <= ny; ++j) visit(at(plane, j, k));
    } else {
      for (int i = 1; i <= nx; ++i) visit(at(i, plane, k));
    }
  }
}

void ZoneField::pack_interior(Face f, double* out) const {
  for_face(f, true, [&](long p) {
    for (int m = 0; m < kComponents; ++m) *out++ = u_[std::size_t(p + m)];
  });
}

void ZoneField::unpack_ghost(Face f, const double* in) {
  for_face(f, false, [&](long p) {
    for (int m = 0; m < kComponents; ++m) u_[std::size_t(p + m)] = *in++;
  });
}

std::array<double, kComponents> ZoneField::sum_squares() const {
  std::array<double, kComponents> s{};
  for (int k = 1; k <= zone_.nz; ++k)
    for (int j = 1; j <= zone_.ny; ++j)
      for (int i = 1; i <= zone_.nx; ++i)
        for (int m = 0; m < kComponents; ++m) {
          const double v = u_[std::size_t(at(i, j, k) + m)];
          s[std::size_t(m)] += v * v;
        }
  return s;
}

}  // namespace btmz
