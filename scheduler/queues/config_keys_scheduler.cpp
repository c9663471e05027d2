// Keys of the scheduler: the ready-queue policy and immediate successor.
// Each row sets a member of Config::scheduler.
#include <stdexcept>
#include <string>

#include "config.hpp"
#include "policy_registry.hpp"

namespace joule::queues {
namespace {

using core::Config;
using core::ConfigKey;

std::string scheduler_values() {
  std::string out;
  for (const auto& n : policy_names()) out += (out.empty() ? "" : ", ") + n;
  return out;
}

void set_scheduler(Config& c, std::string_view v) {
  for (const auto& n : policy_names()) {
    if (n == v) {
      c.scheduler.policy = n;
      return;
    }
  }
  throw std::invalid_argument("unknown scheduler");
}

}  // namespace

// Built at each call, not at static initialisation: api/ adds the sections
// from a static initialiser of its own.
std::vector<ConfigKey> scheduler_config_keys() {
  return {
      {"JOULE_SCHEDULER", scheduler_values, "ready-queue policy", set_scheduler,
       [](const Config& c) { return c.scheduler.policy; }},
      {"JOULE_IMMEDIATE_SUCCESSOR", core::bool_values,
       "a finishing task's first released successor runs next on the same worker",
       [](Config& c, std::string_view v) { c.scheduler.immediate_successor = core::parse_bool(v); },
       [](const Config& c) { return core::format_bool(c.scheduler.immediate_successor); }},
  };
}

}  // namespace joule::queues
