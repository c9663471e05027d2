// btmz's decomposition: zone widths cover the mesh, sizes grow to the asked
// ratio, zones are shared out over ranks as each packing promises, and the
// block-tridiagonal line solve solves its system.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "block_tridiag.hpp"
#include "zones.hpp"

namespace {

using namespace btmz;

TEST(BtmzZones, CoverTheMeshWithTheAskedSizeRatio) {
  for (char c : {'S', 'W', 'A', 'B', 'C'}) {
    const ZoneGrid grid(problem_class(c), 20);
    const ProblemClass& pc = grid.problem();
    long points = 0, smallest = grid.zone(0).points(), largest = 0;
    for (const Zone& z : grid.zones()) {
      points += z.points();
      smallest = std::min(smallest, z.points());
      largest = std::max(largest, z.points());
    }
    EXPECT_EQ(points, long(pc.gx) * pc.gy * pc.gz) << c;
    // Integer widths: the ratio is 20 give or take the rounding.
    EXPECT_NEAR(double(largest) / double(smallest), 20.0, 20.0 * 0.35) << c;
  }
  const ZoneGrid equal(problem_class('A'), 1);
  for (const Zone& z : equal.zones()) EXPECT_EQ(z.points(), equal.zone(0).points());
}

TEST(BtmzZones, NeighboursArePeriodic) {
  const ZoneGrid grid(problem_class('W'), 20);  // 4 x 4 zones
  EXPECT_EQ(grid.neighbour(0, kWest), 3);
  EXPECT_EQ(grid.neighbour(3, kEast), 0);
  EXPECT_EQ(grid.neighbour(0, kSouth), 12);
  EXPECT_EQ(grid.neighbour(12, kNorth), 0);
  for (int id = 0; id < grid.size(); ++id)
    for (Face f : {kWest, kEast, kSouth, kNorth})
      EXPECT_EQ(grid.neighbour(grid.neighbour(id, f), opposite(f)), id);
}

// Rows on class A with 4 ranks: the DLB thesis's 9-16-28-47 BT-MZ split.
TEST(BtmzZones, RowsPackingGivesTheThesisSplit) {
  const ZoneGrid grid(problem_class('A'), 20);
  const auto split = load_split(grid, assign_zones(grid, 4, Packing::rows), 4);
  const double thesis[] = {9, 16, 28, 47};
  for (int r = 0; r < 4; ++r) EXPECT_NEAR(split[std::size_t(r)], thesis[r], 2.5) << r;
}

TEST(BtmzZones, LptBalancesBetterThanRows) {
  const ZoneGrid grid(problem_class('A'), 20);
  for (int ranks : {2, 3, 4, 8}) {
    const auto lpt = load_split(grid, assign_zones(grid, ranks, Packing::lpt), ranks);
    const auto rows = load_split(grid, assign_zones(grid, ranks, Packing::rows), ranks);
    EXPECT_LE(*std::max_element(lpt.begin(), lpt.end()),
              *std::max_element(rows.begin(), rows.end()));
    EXPECT_NEAR(std::accumulate(lpt.begin(), lpt.end(), 0.0), 100.0, 1e-9);
  }
}

TEST(BtmzZones, BadInputIsRejectedWithTheAllowedValues) {
  EXPECT_THROW(problem_class('Q'), std::invalid_argument);
  try {
    parse_packing("round-robin");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("lpt, rows"), std::string::npos);
  }
  const ZoneGrid grid(problem_class('S'), 20);
  EXPECT_THROW(assign_zones(grid, 5, Packing::lpt), std::invalid_argument);  // 4 zones
}

// The line solve's answer satisfies the block system (residual of the
// operator applied directly), on lines of 1 to 40 points with strided layout.
TEST(BtmzLineSolve, SolvesTheBlockSystem) {
  constexpr int N = 5;
  LineScratch scratch;
  const LineCoefficients c{0.08, 0.8};
  for (int n : {1, 2, 3, 7, 40}) {
    const long stride = 3 * N;  // points spread out, as y and z lines are
    std::vector<double> u(std::size_t(n * stride)), b(u.size()), x(u.size()), ax(u.size());
    for (std::size_t i = 0; i < u.size(); ++i) {
      u[i] = 1.0 + 0.37 * std::sin(0.1 * double(i));
      b[i] = std::cos(0.3 * double(i));
    }
    x = b;
    solve_block_line(u.data(), x.data(), stride, n, c, scratch);
    apply_block_line(u.data(), x.data(), stride, n, c, ax.data());
    double worst = 0, change = 0;
    for (int s = 0; s < n; ++s)
      for (int a = 0; a < N; ++a) {
        const std::size_t i = std::size_t(s * stride + a);
        worst = std::max(worst, std::abs(ax[i] - b[i]));
        change += std::abs(x[i] - b[i]);
      }
    EXPECT_LT(worst, 1e-12) << "n=" << n;
    EXPECT_GT(change, 1e-3) << "n=" << n;  // the operator is not the identity
  }
}

}  // namespace
