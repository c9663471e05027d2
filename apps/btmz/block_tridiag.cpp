#include "block_tridiag.hpp"

#include <array>

namespace btmz {
namespace {

constexpr int N = 5;
using Mat = std::array<double, N * N>;  // row-major

// The coupling M = I + S between components, shared by the off-diagonal blocks.
constexpr Mat coupling() {
  Mat m{};
  for (int a = 0; a < N; ++a)
    for (int b = 0; b < N; ++b) m[a * N + b] = a == b ? 1.0 : 0.02 / (1 + (a > b ? a - b : b - a));
  return m;
}
constexpr Mat kM = coupling();

// D[s] = I + 2 r M + dt K(u), K(u) = 0.01 I + 0.05 u u^T / (1 + u.u): a
// point-dependent, symmetric, positive block, as BT's flux Jacobians are
// point-dependent.
void diagonal_block(const double* u, const LineCoefficients& c, Mat& d) {
  double uu = 0;
  for (int a = 0; a < N; ++a) uu += u[a] * u[a];
  const double k = 0.05 * c.dt / (1 + uu);
  for (int a = 0; a < N; ++a)
    for (int b = 0; b < N; ++b)
      d[a * N + b] = 2 * c.r * kM[a * N + b] + k * u[a] * u[b] + (a == b ? 1.0 + 0.01 * c.dt : 0.0);
}

// In-place LU (Doolittle, unit lower triangle).
void lu_factor(Mat& m) {
  for (int p = 0; p < N; ++p) {
    const double inv = 1.0 / m[p * N + p];
    for (int i = p + 1; i < N; ++i) {
      const double f = m[i * N + p] * inv;
      m[i * N + p] = f;
      for (int j = p + 1; j < N; ++j) m[i * N + j] -= f * m[p * N + j];
    }
  }
}

void lu_solve(const Mat& lu, double* v, int stride = 1) {
  for (int i = 1; i < N; ++i)
    for (int j = 0; j < i; ++j) v[i * stride] -= lu[i * N + j] * v[j * stride];
  for (int i = N - 1; i >= 0; --i) {
    for (int j = i + 1; j < N; ++j) v[i * stride] -= lu[i * N + j] * v[j * stride];
    v[i * stride] /= lu[i * N + i];
  }
}

// d += r M c  (the elimination step D' = D - L C with L = -r M).
void add_rmc(double r, const double* c, Mat& d) {
  for (int a = 0; a < N; ++a)
    for (int b = 0; b < N; ++b) {
      double s = 0;
      for (int k = 0; k < N; ++k) s += kM[a * N + k] * c[k * N + b];
      d[a * N + b] += r * s;
    }
}

void add_rmv(double r, const double* v, double* y) {
  for (int a = 0; a < N; ++a) {
    double s = 0;
    for (int k = 0; k < N; ++k) s += kM[a * N + k] * v[k];
    y[a] += r * s;
  }
}

}  // namespace

void solve_block_line(const double* u, double* b, long stride, int n, const LineCoefficients& c,
                      LineScratch& scratch) {
  scratch.upper.resize(std::size_t(n) * N * N);
  scratch.rhs.resize(std::size_t(n) * N);
  double* up = scratch.upper.data();
  double* g = scratch.rhs.data();
  Mat d;
  for (int s = 0; s < n; ++s) {
    diagonal_block(u + s * stride, c, d);
    double* gs = g + s * N;
    for (int a = 0; a < N; ++a) gs[a] = b[s * stride + a];
    if (s > 0) {
      add_rmc(c.r, up + (s - 1) * N * N, d);
      add_rmv(c.r, g + (s - 1) * N, gs);
    }
    lu_factor(d);
    lu_solve(d, gs);
    if (s + 1 < n) {
      // C[s] = D'^-1 U with U = -r M, solved one column at a time.
      double* cs = up + s * N * N;
      for (int k = 0; k < N * N; ++k) cs[k] = -c.r * kM[k];
      for (int col = 0; col < N; ++col) lu_solve(d, cs + col, N);
    }
  }
  // Back substitution: du[s] = g[s] - C[s] du[s+1].
  for (int a = 0; a < N; ++a) b[(n - 1) * stride + a] = g[(n - 1) * N + a];
  for (int s = n - 2; s >= 0; --s) {
    const double* cs = up + s * N * N;
    const double* next = b + (s + 1) * stride;
    for (int a = 0; a < N; ++a) {
      double v = g[s * N + a];
      for (int k = 0; k < N; ++k) v -= cs[a * N + k] * next[k];
      b[s * stride + a] = v;
    }
  }
}

void apply_block_line(const double* u, const double* x, long stride, int n,
                      const LineCoefficients& c, double* out) {
  Mat d;
  for (int s = 0; s < n; ++s) {
    diagonal_block(u + s * stride, c, d);
    double* o = out + s * stride;
    for (int a = 0; a < N; ++a) {
      double v = 0;
      for (int k = 0; k < N; ++k) v += d[a * N + k] * x[s * stride + k];
      o[a] = v;
    }
    // The off-diagonal blocks are -r M on both sides.
    if (s > 0) add_rmv(-c.r, x + (s - 1) * stride, o);
    if (s + 1 < n) add_rmv(-c.r, x + (s + 1) * stride, o);
  }
}

}  // namespace btmz
