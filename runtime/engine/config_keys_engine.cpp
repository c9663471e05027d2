// Keys of the engine: workers, their CPUs and idling (spin and its cap), task throttling and
// the serial inline mode. Each row sets a member of Config::workers or
// Config::scheduler; docs/configuration.md explains them.
#include <string>

#include "config.hpp"
#include "runtime.hpp"

namespace joule::engine {

using namespace joule::core;
namespace {}  // namespace

// Built at each call, not at static initialisation: api/ adds the sections
// from a static initialiser of its own.
std::vector<ConfigKey> engine_config_keys() {
  return {
      {"JOULE_CPUS",
       [] { return std::string("a CPU list such as 0-3,6 (empty: the affinity mask)"); },
       "CPUs to run workers on; must be inside the process affinity mask",
       [](Config& c, std::string_view v) { c.workers.cpus = parse_cpu_list(v); },
       [](const Config& c) { return format_cpu_list(c.workers.cpus); }},
      {"JOULE_WORKERS", [] { return std::string("an integer 0..4096 (0: one per CPU)"); },
       "number of workers; more than CPUs shares CPUs round-robin (a testing mode)",
       [](Config& c, std::string_view v) { c.workers.count = int(parse_int(v, 0, 4096)); },
       [](const Config& c) { return std::to_string(c.workers.count); }},
      {"JOULE_BIND", bool_values, "pin each worker to its CPU with hwloc",
       [](Config& c, std::string_view v) { c.workers.bind = parse_bool(v); },
       [](const Config& c) { return format_bool(c.workers.bind); }},
      {"JOULE_SPIN_US", [] { return std::string("an integer 0..1000000 (microseconds)"); },
       "how long an idle worker spins before it sleeps",
       [](Config& c, std::string_view v) { c.workers.spin_us = int(parse_int(v, 0, 1000000)); },
       [](const Config& c) { return std::to_string(c.workers.spin_us); }},
      {"JOULE_SPIN_MAX_US",
       [] { return std::string("an integer 0..1000000 (microseconds; 0: always JOULE_SPIN_US)"); },
       "longest spin an idle worker learns from short idle gaps (lending off)",
       [](Config& c, std::string_view v) { c.workers.spin_max_us = int(parse_int(v, 0, 1000000)); },
       [](const Config& c) { return std::to_string(c.workers.spin_max_us); }},
      {"JOULE_SERIAL_INLINE", bool_values,
       "with one worker and lending off, tasks run inline in creation order (no dependency "
       "tracking)",
       [](Config& c, std::string_view v) { c.scheduler.serial_inline = parse_bool(v); },
       [](const Config& c) { return format_bool(c.scheduler.serial_inline); }},
      {"JOULE_THROTTLE_TASKS", [] { return std::string("an integer 0..1000000000 (0: off)"); },
       "tasks in flight above which creating threads run ready tasks instead",
       [](Config& c, std::string_view v) {
         c.scheduler.throttle_tasks = parse_int(v, 0, 1000000000);
       },
       [](const Config& c) { return std::to_string(c.scheduler.throttle_tasks); }},
  };
}

}  // namespace joule::engine
