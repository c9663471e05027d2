#include "energy_registry.hpp"

#include <stdexcept>

namespace joule::energy {
namespace {

struct Entry {
  const char* name;
  PolicyFactory make;
};

// One line per policy.
const Entry kPolicies[] = {
    {"none", make_none},
    {"fg-energylb", make_fg_energylb},
    {"cg-energylb", make_cg_energylb},
    {"queue-depth", make_queue_depth},
    {"templb", make_templb},
    {"mpi-slack", make_mpi_slack},
};

}  // namespace

std::vector<std::string> energy_policy_names() {
  std::vector<std::string> out{"auto"};
  for (const auto& e : kPolicies) out.emplace_back(e.name);
  return out;
}

std::unique_ptr<EnergyPolicy> make_energy_policy(std::string_view name, const Options& opt) {
  for (const auto& e : kPolicies)
    if (name == e.name) return e.make(opt);
  throw std::invalid_argument("unknown energy policy '" + std::string(name) + "'");
}

std::string resolve_auto(bool iterative_with_keys, bool per_chip_dvfs) {
  if (iterative_with_keys) return per_chip_dvfs ? "cg-energylb" : "fg-energylb";
  return "queue-depth";
}

}  // namespace joule::energy
