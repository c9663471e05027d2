// A plain Nelder-Mead simplex (reflection 1, expansion 2, contraction 1/2,
// shrink 1/2): the time model has four or five parameters and a max() that
// breaks derivatives, so a derivative-free method is the simple choice.
#include <algorithm>
#include <numeric>

#include "fit.hpp"

namespace joule::advisor {
namespace {

using Point = std::vector<double>;

Point blend(const Point& a, const Point& b, double t) {  // a + t·(b − a)
  Point r(a.size());
  for (size_t i = 0; i < a.size(); ++i) r[i] = a[i] + t * (b[i] - a[i]);
  return r;
}

}  // namespace

std::vector<double> nelder_mead(Objective f, const void* ctx, std::vector<double> start,
                                double step, int iterations) {
  const size_t n = start.size();
  std::vector<Point> pts(n + 1, start);
  for (size_t i = 0; i < n; ++i) pts[i + 1][i] += step;
  std::vector<double> val(n + 1);
  for (size_t i = 0; i <= n; ++i) val[i] = f(pts[i], ctx);
  std::vector<size_t> order(n + 1);
  for (int it = 0; it < iterations; ++it) {
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return val[a] < val[b]; });
    const size_t best = order[0], worst = order[n], second = order[n - 1];
    Point centre(n, 0.0);
    for (size_t i = 0; i < n; ++i)
      for (size_t k = 0; k < n; ++k) centre[k] += pts[order[i]][k] / n;
    const Point refl = blend(centre, pts[worst], -1);
    const double fr = f(refl, ctx);
    if (fr < val[best]) {
      const Point exp = blend(centre, pts[worst], -2);
      const double fe = f(exp, ctx);
      pts[worst] = fe < fr ? exp : refl;
      val[worst] = std::min(fe, fr);
    } else if (fr < val[second]) {
      pts[worst] = refl, val[worst] = fr;
    } else {
      const Point con = blend(centre, pts[worst], 0.5);
      const double fc = f(con, ctx);
      if (fc < val[worst]) {
        pts[worst] = con, val[worst] = fc;
      } else {
        for (size_t i = 0; i <= n; ++i) {
          if (i == best) continue;
          pts[i] = blend(pts[best], pts[i], 0.5);
          val[i] = f(pts[i], ctx);
        }
      }
    }
  }
  return pts[std::min_element(val.begin(), val.end()) - val.begin()];
}

}  // namespace joule::advisor
