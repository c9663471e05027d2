// The energy section of the configuration: the JOULE_ENERGY_* keys
// (config_keys_energy.cpp) and the policy Options they make.
#pragma once

#include <vector>

#include "config.hpp"
#include "energy_policy.hpp"

namespace joule::energy {

// The rows of Config::energy, for core::add_config_section.
std::vector<core::ConfigKey> energy_config_keys();

// Config::energy (validated strings and numbers) as policy Options.
Options options_from_config(const core::Config& cfg);

}  // namespace joule::energy
