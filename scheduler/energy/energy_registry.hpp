// Energy policies by name (JOULE_ENERGY_POLICY): one factory per file.
#pragma once

#include "energy_policy.hpp"

namespace joule::energy {

using PolicyFactory = std::unique_ptr<EnergyPolicy> (*)(const Options&);

std::unique_ptr<EnergyPolicy> make_none(const Options& opt);

}  // namespace joule::energy
