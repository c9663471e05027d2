// The multi-zone decomposition of a BT-MZ-like problem: a global nx x ny x nz
// mesh tiled in x and y into zones whose widths grow geometrically, so that
// zone sizes are unequal (the largest zone about 20 times the smallest, as in
// NPB's BT-MZ), and the assignment of zones to MPI ranks.
#pragma once

#include <string>
#include <vector>

namespace btmz {

// A problem class: global mesh and zone counts (the DLB thesis, §3.2, Table 3.1).
struct ProblemClass {
  char name;
  int gx, gy, gz;        // global mesh points
  int zones_x, zones_y;  // zones along x and y (never split in z)
};

// The classes this app knows; throws std::invalid_argument naming the allowed ones.
const ProblemClass& problem_class(char name);
std::string class_names();  // "S, W, A, B"

struct Zone {
  int id;      // zone_y * zones_x + zone_x
  int zx, zy;  // position in the zone grid
  int nx, ny, nz;
  int x0, y0;  // global offset of the first interior point
  long points() const { return long(nx) * ny * nz; }
};

enum Face { kWest = 0, kEast = 1, kSouth = 2, kNorth = 3 };
inline Face opposite(Face f) { return Face(f ^ 1); }

class ZoneGrid {
 public:
  // `ratio`: largest / smallest zone size (1 gives equal zones, SP-MZ-like).
  ZoneGrid(const ProblemClass& pc, double ratio);
  const std::vector<Zone>& zones() const { return zones_; }
  const Zone& zone(int id) const { return zones_[std::size_t(id)]; }
  int size() const { return int(zones_.size()); }
  // The zone across `f` (periodic in x and y, as the NPB-MZ meshes).
  int neighbour(int id, Face f) const;
  const ProblemClass& problem() const { return pc_; }

 private:
  ProblemClass pc_;
  std::vector<Zone> zones_;
};

// How zones are given to ranks: `lpt` is largest-first to the least-loaded
// rank (a bin packing that still leaves imbalance when zones are few), `rows`
// gives each rank a contiguous band of zone rows (with 4 ranks on class A the
// 9-16-28-47 split the DLB thesis reports for BT-MZ).
enum class Packing { lpt, rows };
Packing parse_packing(const std::string& text);  // throws, naming the allowed values

// owner[zone id] = rank. Throws std::invalid_argument when ranks > zones.
std::vector<int> assign_zones(const ZoneGrid& grid, int ranks, Packing packing);

// Each rank's share of the points, in percent.
std::vector<double> load_split(const ZoneGrid& grid, const std::vector<int>& owner, int ranks);

}  // namespace btmz
