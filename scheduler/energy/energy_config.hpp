// The energy policies' settings: which policy, and the Options it runs with
// (keys in config_keys_energy.cpp; docs/energy.md).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "choices.hpp"
#include "config.hpp"
#include "energy_policy.hpp"

namespace joule::energy {

inline constexpr std::pair<const char*, Quantise> kQuantise[] = {{"ceil", Quantise::ceil},
                                                                 {"round", Quantise::round}};
inline constexpr std::pair<const char*, LoadNorm> kLoadNorms[] = {
    {"work", LoadNorm::work}, {"as-written", LoadNorm::as_written}};
inline constexpr std::pair<const char*, Balancer> kBalancers[] = {
    {"none", Balancer::none},
    {"greedy", Balancer::greedy},
    {"refine", Balancer::refine},
    {"randcent", Balancer::randcent},
    {"partition", Balancer::partition}};
inline constexpr std::pair<const char*, OnBalance> kOnBalance[] = {
    {"either", OnBalance::either},
    {"reset-max", OnBalance::reset_max},
    {"lb-then-dvfs", OnBalance::lb_then_dvfs}};
inline constexpr std::pair<const char*, Objective> kObjectives[] = {
    {"energy", Objective::energy}, {"time", Objective::time}, {"edp", Objective::edp}};

struct EnergySettings {
  std::string policy = "auto";  // JOULE_ENERGY_POLICY: a name of energy_policy_names()
  Options options;              // the other JOULE_ENERGY_* keys
};

// JOULE_ENERGY_POLICY and the Options keys, for core::add_config_section.
std::vector<core::ConfigKey> energy_config_keys();

inline const Options& options_from_config(const core::Config& cfg) {
  return cfg.get<EnergySettings>().options;
}

}  // namespace joule::energy
