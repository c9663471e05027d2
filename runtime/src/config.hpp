// The one configuration of the runtime: filled from JOULE_* environment
// variables, an optional KEY=VALUE file and explicit overrides, validated
// once at start-up. Nothing else in joule reads the environment.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace joule::rt {

using Settings = std::vector<std::pair<std::string, std::string>>;

struct Config {
  struct Workers {
    std::vector<int> cpus;  // empty: the process affinity mask
    int count = 0;          // 0: one per CPU
    bool bind = true;
    int spin_us = 100;
  } workers;

  struct Scheduler {
    std::string policy = "work-stealing";
    bool immediate_successor = true;
    std::int64_t throttle_tasks = 100000;  // 0: no throttle
  } scheduler;

  // The platform layer: DVFS, energy meters, thermal sensors, counters
  // (keys in config_keys_platform.cpp).
  struct Platform {
  } platform;

  // Observability: traces and the end-of-run report (config_keys_trace.cpp).
  struct Trace {
  } trace;

  bool report = false;  // JOULE_REPORT: print the end-of-run report
  bool dump = false;
  std::string file;

  // Environment, then the file named by JOULE_CONFIG_FILE, then overrides
  // (later wins). Throws joule::error(JOULE_ERR_CONFIG) on any bad key/value.
  static Config load(const Settings& overrides);
  // Applies one KEY=VALUE; `where` prefixes the error (e.g. "file:3: ").
  void set(std::string_view key, std::string_view value, const std::string& where = "");
  std::string dump_text() const;
};

// One row per key: the single table that parsing, validation and the dump share.
struct ConfigKey {
  const char* name;
  std::string (*allowed)();  // human description of the allowed values
  const char* help;
  void (*set)(Config&, std::string_view value);  // throws std::invalid_argument
  std::string (*get)(const Config&);
};

// The whole table: core keys plus each subsystem's section.
const std::vector<ConfigKey>& config_keys();
std::vector<ConfigKey> core_config_keys();
std::vector<ConfigKey> platform_config_keys();
std::vector<ConfigKey> trace_config_keys();

// Helpers the key table uses; exposed for tests.
bool parse_bool(std::string_view v);
std::int64_t parse_int(std::string_view v, std::int64_t lo, std::int64_t hi);
std::vector<int> parse_cpu_list(std::string_view v);
std::string format_cpu_list(const std::vector<int>& cpus);

}  // namespace joule::rt
