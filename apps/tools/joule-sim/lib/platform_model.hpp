// The modelled machine: cores in chips, DVFS domains (a core or a chip), a
// P-state per domain, power per core state, uncore per chip, and an RC
// thermal model per chip (Sarood & Kale's Eq. 3, "Cool" LB, SC'11):
//   steady state  T_ss = alpha * (T_air + hotspot_chip) + beta * P_chip + gamma
//   dynamics      T(t + dt) = T_ss + (T(t) - T_ss) * exp(-dt / tau)
// stepped exactly over each interval with the interval's average chip power.
#pragma once

#include <cstdint>
#include <vector>

#include "energy_policy.hpp"
#include "scenario.hpp"

namespace joule::sim {

class PlatformModel {
 public:
  explicit PlatformModel(const PlatformSpec& spec);
  int cores() const { return spec_.pes(); }
  int chips() const { return spec_.chips; }
  int chip_of(int core) const { return core / spec_.cores_per_chip; }
  int domain_of(int core) const { return spec_.per_chip_dvfs ? chip_of(core) : core; }
  int domains() const { return spec_.per_chip_dvfs ? spec_.chips : cores(); }
  int top_level() const { return int(spec_.pstates_ghz.size()) - 1; }
  double fmax_ghz() const { return spec_.pstates_ghz.back(); }
  double ghz_of_core(int core) const {
    return spec_.pstates_ghz[std::size_t(level_[domain_of(core)])];
  }
  int level(int domain) const { return level_[std::size_t(domain)]; }
  // Sets a domain's level; true when it changed.
  bool set_level(int domain, int level);

  double busy_watts(int core) const;
  double wait_watts(int core) const;
  double idle_watts(int core) const;
  double uncore_watts() const { return spec_.uncore_w; }

  // Advances every chip's temperature over `dt` at average chip power `watts`.
  void advance_thermal(double dt, const std::vector<double>& watts);
  const std::vector<double>& temperatures() const { return temp_; }
  // The inlet air from now on (the room model's supply air).
  void set_air_c(double c) { spec_.air_c = c; }
  // Every chip at the steady state of all its cores busy at fmax.
  void settle();

  // The policy's view of the platform (domains, chips); cores filled by the caller.
  void fill_observation(energy::Observation& obs) const;
  const PlatformSpec& spec() const { return spec_; }

 private:
  double steady_state(int chip, double watts) const;

  PlatformSpec spec_;
  std::vector<int> level_;  // per domain
  std::vector<double> temp_;
  std::vector<std::uint32_t> khz_;
  std::vector<double> busy_table_;         // one busy core per P-state
  std::vector<energy::DomainView> views_;  // per domain, level filled per call
};

}  // namespace joule::sim
