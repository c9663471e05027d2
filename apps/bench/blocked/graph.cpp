#include "graph.hpp"

namespace blocked {
namespace {

using u32 = std::uint32_t;

void add(std::vector<TaskDesc>& out, Kernel kernel, u32 k, u32 row, u32 col) {
  out.push_back({kernel, k, row, col, static_cast<u32>(out.size())});
}

// lu0(k); fwd(k, j) on the row panel; bdiv(i, k) on the column panel;
// bmod(i, j) on the trailing matrix, row by row.
void lu_graph(std::vector<TaskDesc>& out, u32 nb) {
  for (u32 k = 0; k < nb; ++k) {
    add(out, Kernel::lu0, k, k, k);
    for (u32 j = k + 1; j < nb; ++j) add(out, Kernel::fwd, k, k, j);
    for (u32 i = k + 1; i < nb; ++i) add(out, Kernel::bdiv, k, i, k);
    for (u32 i = k + 1; i < nb; ++i) {
      for (u32 j = k + 1; j < nb; ++j) add(out, Kernel::bmod, k, i, j);
    }
  }
}

// potrf(k); trsm(i, k) down the panel; then per row i of the trailing lower
// triangle, gemm(i, j) for j < i and syrk(i, i).
void cholesky_graph(std::vector<TaskDesc>& out, u32 nb) {
  for (u32 k = 0; k < nb; ++k) {
    add(out, Kernel::potrf, k, k, k);
    for (u32 i = k + 1; i < nb; ++i) add(out, Kernel::trsm, k, i, k);
    for (u32 i = k + 1; i < nb; ++i) {
      for (u32 j = k + 1; j < i; ++j) add(out, Kernel::gemm, k, i, j);
      add(out, Kernel::syrk, k, i, i);
    }
  }
}

}  // namespace

const char* app_name(App app) { return app == App::lu ? "lu" : "cholesky"; }

bool parse_app(std::string_view text, App* app) {
  if (text == "lu") {
    *app = App::lu;
  } else if (text == "cholesky" || text == "chol") {
    *app = App::cholesky;
  } else {
    return false;
  }
  return true;
}

const char* kernel_name(Kernel kernel) {
  static const char* const kNames[] = {"lu0",   "fwd",  "bdiv", "bmod",
                                       "potrf", "trsm", "syrk", "gemm"};
  return kNames[static_cast<int>(kernel)];
}

Access access_of(const TaskDesc& t) {
  const BlockRef self{t.row, t.col};
  const BlockRef diag{t.k, t.k};
  switch (t.kernel) {
    case Kernel::lu0:
    case Kernel::potrf:
      return {{}, 0, self};
    case Kernel::fwd:
    case Kernel::bdiv:
    case Kernel::trsm:
      return {{diag}, 1, self};
    case Kernel::bmod:  // c(i,j) -= a(i,k) b(k,j)
      return {{{t.row, t.k}, {t.k, t.col}}, 2, self};
    case Kernel::syrk:  // c(i,i) -= a(i,k) a(i,k)^T
      return {{{t.row, t.k}}, 1, self};
    case Kernel::gemm:  // c(i,j) -= a(i,k) a(j,k)^T
      return {{{t.row, t.k}, {t.col, t.k}}, 2, self};
  }
  return {{}, 0, self};
}

std::vector<TaskDesc> build_graph(App app, std::size_t nb) {
  std::vector<TaskDesc> out;
  const auto n = static_cast<u32>(nb);
  out.reserve(static_cast<std::size_t>(n) * n * n / 3 + 2 * n * n + 1);
  if (app == App::lu) {
    lu_graph(out, n);
  } else {
    cholesky_graph(out, n);
  }
  return out;
}

double app_flops(App app, std::size_t n) {
  const double d = static_cast<double>(n);
  return app == App::lu ? 2.0 * d * d * d / 3.0 : d * d * d / 3.0;
}

}  // namespace blocked
