// The ready queues' settings (keys in config_keys_queues.cpp).
#pragma once

#include <string>
#include <vector>

#include "config.hpp"

namespace joule::queues {

struct QueueSettings {
  std::string policy = "work-stealing";  // JOULE_QUEUES: a name of policy_names()
  bool immediate_successor = true;       // JOULE_IMMEDIATE_SUCCESSOR
};

std::vector<core::ConfigKey> queues_config_keys();

}  // namespace joule::queues
