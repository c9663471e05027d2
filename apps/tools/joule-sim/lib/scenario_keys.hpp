// One row of the scenario key table: its name, what it accepts (for errors
// and `joule-sim keys`) and where the value goes. scenario.cpp holds the
// platform, workload, lending and policy rows; scenario_model_keys.cpp the
// split, lb, network, room and noise rows.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "scenario.hpp"

namespace joule::sim {

struct Key {
  const char* name;
  const char* allowed;
  std::function<void(Scenario&, const std::string&)> apply;
};

const std::vector<Key>& model_keys();
// Cross-key checks of the network, room and noise sections (ConfigError).
void check_models(const Scenario& s);

}  // namespace joule::sim
