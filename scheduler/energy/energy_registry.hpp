// Energy policies by name (JOULE_ENERGY_POLICY): one factory per file.
#pragma once

#include "energy_policy.hpp"

namespace joule::energy {

using PolicyFactory = std::unique_ptr<EnergyPolicy> (*)(const Options&);

std::unique_ptr<EnergyPolicy> make_none(const Options& opt);
std::unique_ptr<EnergyPolicy> make_fg_energylb(const Options& opt);
std::unique_ptr<EnergyPolicy> make_cg_energylb(const Options& opt);
std::unique_ptr<EnergyPolicy> make_queue_depth(const Options& opt);
std::unique_ptr<EnergyPolicy> make_templb(const Options& opt);
std::unique_ptr<EnergyPolicy> make_mpi_slack(const Options& opt);

}  // namespace joule::energy
