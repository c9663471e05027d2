// Workload models for the step engine: migratable objects (one affinity key
// each) on PEs, and each object's work per step in seconds at fmax.
//   static   per-PE loads (split evenly over its objects) or per-object loads
//   lb_test  Charm++ lb_test: min + (max-min) * U^4 per object, block mapping,
//            PE scales spread geometrically to `imbalance`, optional drift
//   stencil  equal objects +- noise, plus frequency-independent comm_s
//   dynamic  a max/min ratio that follows a profile over the run (Ondes3D-,
//            Lulesh-like shapes of Padoin's thesis, §5.2-5.3), per PE or per chip
//   btmz     NPB BT-MZ zones (geometric sizes, zone_ratio) blocked or
//            bin-packed over ranks
//   pils     a load split over ranks (the DLB thesis's PILS), 1/grain objects each
// The dag kind has its own engine (dag_engine.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "rng.hpp"
#include "scenario.hpp"

namespace joule::sim {

struct SimObject {
  std::uint64_t key = 0;
  int pe = 0;  // initial PE
};

class Workload {
 public:
  Workload(const WorkloadSpec& spec, int pes, int cores_per_chip);
  const std::vector<SimObject>& objects() const { return objects_; }
  // Work of every object in `step` (1-based), seconds at fmax.
  void step_work(int step, std::vector<double>& work);
  double comm_s() const { return spec_.comm_s; }
  // The imbalance profile's max/min ratio at `step` (1 for flat kinds).
  double ratio_at(int step) const;

 private:
  void make_static();
  void make_lb_test();
  void make_even(int per_pe_default);  // stencil and dynamic
  void make_btmz();
  void make_pils();
  void place_block();  // object i -> PE i * pes / n
  void place_binpack();
  void shuffle_units(int units);
  std::vector<double> profile_points() const;

  WorkloadSpec spec_;
  int pes_, cores_per_chip_;
  Rng rng_;
  std::vector<SimObject> objects_;
  std::vector<double> base_;      // per object: s/step at fmax before scaling
  std::vector<double> position_;  // per unit (PE or chip): 0 light .. 1 heavy
  bool dynamic_ = false;
};

}  // namespace joule::sim
