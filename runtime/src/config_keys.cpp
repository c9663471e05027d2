// The key table. Adding a setting = one member in Config + one row here.
#include <stdexcept>
#include <string>

#include "config.hpp"
#include "policy_registry.hpp"

namespace joule::rt {
namespace {

std::string b2s(bool b) { return b ? "1" : "0"; }
std::string bool_values() { return "0, 1, true, false, yes, no, on, off"; }

std::string scheduler_values() {
  std::string out;
  for (const auto& n : sched::policy_names()) out += (out.empty() ? "" : ", ") + n;
  return out;
}

void set_scheduler(Config& c, std::string_view v) {
  for (const auto& n : sched::policy_names()) {
    if (n == v) {
      c.scheduler.policy = n;
      return;
    }
  }
  throw std::invalid_argument("unknown scheduler");
}

const std::vector<ConfigKey> kCoreKeys = {
    {"JOULE_CPUS", [] { return std::string("a CPU list such as 0-3,6 (empty: the affinity mask)"); },
     "CPUs to run workers on; must be inside the process affinity mask",
     [](Config& c, std::string_view v) { c.workers.cpus = parse_cpu_list(v); },
     [](const Config& c) { return format_cpu_list(c.workers.cpus); }},
    {"JOULE_WORKERS", [] { return std::string("an integer 0..4096 (0: one per CPU)"); },
     "number of workers; more than CPUs shares CPUs round-robin (a testing mode)",
     [](Config& c, std::string_view v) { c.workers.count = int(parse_int(v, 0, 4096)); },
     [](const Config& c) { return std::to_string(c.workers.count); }},
    {"JOULE_BIND", bool_values, "pin each worker to its CPU with hwloc",
     [](Config& c, std::string_view v) { c.workers.bind = parse_bool(v); },
     [](const Config& c) { return b2s(c.workers.bind); }},
    {"JOULE_SPIN_US", [] { return std::string("an integer 0..1000000 (microseconds)"); },
     "how long an idle worker spins before it sleeps",
     [](Config& c, std::string_view v) { c.workers.spin_us = int(parse_int(v, 0, 1000000)); },
     [](const Config& c) { return std::to_string(c.workers.spin_us); }},
    {"JOULE_SCHEDULER", scheduler_values, "ready-queue policy", set_scheduler,
     [](const Config& c) { return c.scheduler.policy; }},
    {"JOULE_IMMEDIATE_SUCCESSOR", bool_values,
     "a finishing task's first released successor runs next on the same worker",
     [](Config& c, std::string_view v) { c.scheduler.immediate_successor = parse_bool(v); },
     [](const Config& c) { return b2s(c.scheduler.immediate_successor); }},
    {"JOULE_SERIAL_INLINE", bool_values,
     "with one worker and lending off, tasks run inline in creation order (no dependency tracking)",
     [](Config& c, std::string_view v) { c.scheduler.serial_inline = parse_bool(v); },
     [](const Config& c) { return b2s(c.scheduler.serial_inline); }},
    {"JOULE_THROTTLE_TASKS", [] { return std::string("an integer 0..1000000000 (0: off)"); },
     "tasks in flight above which creating threads run ready tasks instead",
     [](Config& c, std::string_view v) { c.scheduler.throttle_tasks = parse_int(v, 0, 1000000000); },
     [](const Config& c) { return std::to_string(c.scheduler.throttle_tasks); }},
    {"JOULE_REPORT", bool_values, "print the end-of-run report (time, tasks, energy, ...)",
     [](Config& c, std::string_view v) { c.report = parse_bool(v); },
     [](const Config& c) { return b2s(c.report); }},
    {"JOULE_CONFIG_DUMP", bool_values, "print the effective configuration at start",
     [](Config& c, std::string_view v) { c.dump = parse_bool(v); },
     [](const Config& c) { return b2s(c.dump); }},
    {"JOULE_CONFIG_FILE", [] { return std::string("a path to a file of KEY=VALUE lines"); },
     "configuration file read before the environment overrides",
     [](Config& c, std::string_view v) { c.file = std::string(v); },
     [](const Config& c) { return c.file; }},
};

}  // namespace

std::vector<ConfigKey> core_config_keys() { return kCoreKeys; }

const std::vector<ConfigKey>& config_keys() {
  static const std::vector<ConfigKey> all = [] {
    std::vector<ConfigKey> keys = core_config_keys();
    for (auto section : {platform_config_keys, trace_config_keys, lewi_config_keys})
      for (auto& k : section()) keys.push_back(k);
    return keys;
  }();
  return all;
}

}  // namespace joule::rt
