// The machine room of Sarood & Kale's "Cool" LB (§4, §7.2): the CRAC
// removes Q = the machine's power plus the heat leaking in from the
// building, UA x (T_building - T_room), at constant air flow, so
// T_hot - T_ac = Q / (c_air f_ac) (Eq. 1). It holds the exhaust T_hot at
// the set point (it follows the return air), so the supply
// T_ac = set point - (T_hot - T_ac) is the chips' inlet air: a warmer set
// point and a cooler machine both warm the inlet. The air is taken as
// settling within a step (quasi-steady), the chips keep their RC lag.
// Eq. 5's c_norm is the ratio of the integrals of T_hot - T_ac.
#pragma once

#include <algorithm>

#include "scenario.hpp"

namespace joule::sim {

class RoomModel {
 public:
  explicit RoomModel(const RoomSpec& spec) : spec_(spec) {}
  bool active() const { return spec_.active(); }
  // T_hot - T_ac (K) while the machine draws `machine_w`.
  double delta_k(double machine_w) const {
    const double leak = spec_.envelope_w_per_k * (spec_.building_c - spec_.setpoint_c);
    return std::max(0.0, machine_w + leak) / spec_.airflow_w_per_k;
  }
  // The supply (inlet) air.
  double supply_c(double machine_w) const { return spec_.setpoint_c - delta_k(machine_w); }

 private:
  RoomSpec spec_;
};

}  // namespace joule::sim
