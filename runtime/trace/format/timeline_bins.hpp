// Pixel-column binning for the timeline: what each column of a row shows,
// and the time-weighted value of a counter per column. Internal to
// timeline.cpp; a header so that the drawing code stays readable.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "trace_model.hpp"

namespace joule::trace_format::timeline_detail {

inline constexpr int kLeft = 190;  // pixels left of the plot (row names)
inline constexpr std::uint32_t kNone = 0xffffffff;

// The window on the trace's time axis and the plot width.
struct View {
  std::uint64_t a, b;  // window on the trace's time axis
  int w;               // plot width in pixels
  double dt() const { return double(b - a) / w; }
  double x(std::uint64_t t) const {
    const double tt = double(std::clamp(t, a, b) - a);
    return kLeft + tt / double(b - a) * w;
  }
};

// Time per category in each pixel column.
class Bins {
 public:
  explicit Bins(const View& v) : v_(v), cols_(std::size_t(v.w)) {}
  void add(std::uint32_t cat, std::uint64_t t0, std::uint64_t t1, double sign) {
    t0 = std::max(t0, v_.a), t1 = std::min(t1, v_.b);
    if (t1 <= t0) return;
    const double dt = v_.dt();
    const int c0 = std::min(v_.w - 1, int(double(t0 - v_.a) / dt));
    const int c1 = std::min(v_.w - 1, int(double(t1 - v_.a) / dt));
    for (int c = c0; c <= c1; ++c) {
      const double s = std::max(double(t0 - v_.a), c * dt),
                   e = std::min(double(t1 - v_.a), (c + 1) * dt);
      if (e > s) bump(cols_[std::size_t(c)], cat, sign * (e - s));
    }
  }
  // What each column shows: the category that took more time than idle.
  std::vector<std::uint32_t> dominant() const {
    std::vector<std::uint32_t> out(cols_.size(), kNone);
    for (std::size_t c = 0; c < cols_.size(); ++c) {
      double covered = 0, best = 0;
      for (const auto& [cat, w] : cols_[c]) {
        if (w <= 0) continue;
        covered += w;
        if (w > best) best = w, out[c] = cat;
      }
      if (best <= v_.dt() - covered) out[c] = kNone;
    }
    return out;
  }

 private:
  static void bump(std::vector<std::pair<std::uint32_t, double>>& col, std::uint32_t cat,
                   double w) {
    for (auto& e : col)
      if (e.first == cat) {
        e.second += w;
        return;
      }
    col.emplace_back(cat, w);
  }
  View v_;
  std::vector<std::vector<std::pair<std::uint32_t, double>>> cols_;
};

// Time-weighted mean of a step counter per column; NaN before the first sample.
inline std::vector<double> column_values(const Counter& c, const View& v) {
  std::vector<double> sum(std::size_t(v.w), 0), wt(std::size_t(v.w), 0);
  const double dt = v.dt();
  for (std::size_t i = 0; i < c.samples.size(); ++i) {
    const std::uint64_t t0 = std::max(c.samples[i].first, v.a);
    const std::uint64_t t1 = std::min(i + 1 < c.samples.size() ? c.samples[i + 1].first : v.b, v.b);
    if (t1 <= t0) continue;
    const int c0 = std::min(v.w - 1, int(double(t0 - v.a) / dt));
    const int c1 = std::min(v.w - 1, int(double(t1 - v.a) / dt));
    for (int col = c0; col <= c1; ++col) {
      const double s = std::max(double(t0 - v.a), col * dt),
                   e = std::min(double(t1 - v.a), (col + 1) * dt);
      if (e <= s) continue;
      sum[std::size_t(col)] += c.samples[i].second * (e - s);
      wt[std::size_t(col)] += e - s;
    }
  }
  std::vector<double> out(std::size_t(v.w), std::numeric_limits<double>::quiet_NaN());
  for (std::size_t i = 0; i < out.size(); ++i)
    if (wt[i] > 0) out[i] = sum[i] / wt[i];
  return out;
}

}  // namespace joule::trace_format::timeline_detail
