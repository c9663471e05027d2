#include "zones.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace btmz {
namespace {

constexpr ProblemClass kClasses[] = {
    {'S', 24, 24, 6, 2, 2},    {'W', 64, 64, 8, 4, 4},      {'A', 128, 128, 16, 4, 4},
    {'B', 304, 208, 17, 8, 8}, {'C', 480, 320, 28, 16, 16},
};

// Splits `total` points into `n` widths growing by a constant factor q, so
// that the last is q^(n-1) times the first; cumulative rounding keeps the sum.
std::vector<int> geometric_widths(int total, int n, double q) {
  std::vector<double> w(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) w[std::size_t(i)] = std::pow(q, i);
  const double sum = std::accumulate(w.begin(), w.end(), 0.0);
  std::vector<int> out(static_cast<std::size_t>(n));
  double cum = 0;
  int placed = 0;
  for (int i = 0; i < n; ++i) {
    cum += w[std::size_t(i)];
    const int edge = int(std::lround(cum / sum * total));
    out[std::size_t(i)] = edge - placed;
    placed = edge;
    if (out[std::size_t(i)] < 2)
      throw std::invalid_argument("zone width below 2 points: lower --ratio or use a larger class");
  }
  return out;
}

}  // namespace

const ProblemClass& problem_class(char name) {
  for (const auto& c : kClasses)
    if (c.name == name) return c;
  throw std::invalid_argument(std::string("unknown class '") + name +
                              "'; allowed: " + class_names());
}

std::string class_names() {
  std::string s;
  for (const auto& c : kClasses) s += (s.empty() ? "" : ", ") + std::string(1, c.name);
  return s;
}

ZoneGrid::ZoneGrid(const ProblemClass& pc, double ratio) : pc_(pc) {
  if (!(ratio >= 1.0)) throw std::invalid_argument("--ratio must be >= 1");
  // The area ratio of the corner zones is q^(zx-1) * q^(zy-1) = ratio.
  const int steps = (pc.zones_x - 1) + (pc.zones_y - 1);
  const double q = steps > 0 ? std::pow(ratio, 1.0 / steps) : 1.0;
  const auto wx = geometric_widths(pc.gx, pc.zones_x, q);
  const auto wy = geometric_widths(pc.gy, pc.zones_y, q);
  int y0 = 0;
  for (int zy = 0; zy < pc.zones_y; ++zy) {
    int x0 = 0;
    for (int zx = 0; zx < pc.zones_x; ++zx) {
      zones_.push_back(
          {zy * pc.zones_x + zx, zx, zy, wx[std::size_t(zx)], wy[std::size_t(zy)], pc.gz, x0, y0});
      x0 += wx[std::size_t(zx)];
    }
    y0 += wy[std::size_t(zy)];
  }
}

int ZoneGrid::neighbour(int id, Face f) const {
  const Zone& z = zone(id);
  const int X = pc_.zones_x, Y = pc_.zones_y;
  switch (f) {
    case kWest:
      return z.zy * X + (z.zx + X - 1) % X;
    case kEast:
      return z.zy * X + (z.zx + 1) % X;
    case kSouth:
      return ((z.zy + Y - 1) % Y) * X + z.zx;
    case kNorth:
      break;
  }
  return ((z.zy + 1) % Y) * X + z.zx;
}

Packing parse_packing(const std::string& text) {
  if (text == "lpt") return Packing::lpt;
  if (text == "rows") return Packing::rows;
  throw std::invalid_argument("unknown packing '" + text + "'; allowed: lpt, rows");
}

std::vector<int> assign_zones(const ZoneGrid& grid, int ranks, Packing packing) {
  const int n = grid.size();
  if (ranks < 1 || ranks > n)
    throw std::invalid_argument(std::to_string(ranks) + " ranks for " + std::to_string(n) +
                                " zones: at most one rank per zone");
  std::vector<int> owner(std::size_t(n), 0);
  if (packing == Packing::rows) {
    // Zone rows in contiguous bands; zones in a row are cut evenly when
    // there are more ranks than rows.
    for (int id = 0; id < n; ++id) owner[std::size_t(id)] = int(long(id) * ranks / n);
    return owner;
  }
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return grid.zone(a).points() > grid.zone(b).points(); });
  std::vector<long> load(std::size_t(ranks), 0);
  for (int id : order) {
    const auto r = std::size_t(std::min_element(load.begin(), load.end()) - load.begin());
    owner[std::size_t(id)] = int(r);
    load[r] += grid.zone(id).points();
  }
  return owner;
}

std::vector<double> load_split(const ZoneGrid& grid, const std::vector<int>& owner, int ranks) {
  std::vector<double> share(std::size_t(ranks), 0.0);
  double total = 0;
  for (const Zone& z : grid.zones()) {
    share[std::size_t(owner[std::size_t(z.id)])] += double(z.points());
    total += double(z.points());
  }
  for (double& s : share) s = 100.0 * s / total;
  return share;
}

}  // namespace btmz
