// The key table: the core's keys (CPUs, report, dump, file) and the
// sections the layers add. A layer's setting is one member of its settings
// struct and one KeyTable row in its config_keys_*.cpp (key_table.hpp).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "config.hpp"

namespace joule::core {

// Built at each call, not at static initialisation: api/ adds the sections
// from a static initialiser of its own.
std::vector<ConfigKey> core_config_keys() {
  auto row = [](const char* name, const char* type, std::string allowed, const char* help, auto set,
                auto get) {
    return ConfigKey{name, [allowed] { return allowed; }, help, set, get, type, {}};
  };
  return {
      row(
          "JOULE_CPUS", "list", "a CPU list such as 0-3,6 (empty: the affinity mask)",
          "CPUs to run workers on; must be inside the process affinity mask",
          [](Config& c, std::string_view v) { c.cpus = parse_cpu_list(v); },
          [](const Config& c) { return format_cpu_list(c.cpus); }),
      row(
          "JOULE_REPORT", "boolean", bool_values(),
          "print the end-of-run report (time, tasks, energy, ...)",
          [](Config& c, std::string_view v) { c.report = parse_bool(v); },
          [](const Config& c) { return format_bool(c.report); }),
      row(
          "JOULE_CONFIG_DUMP", "boolean", bool_values(),
          "print the effective configuration at start",
          [](Config& c, std::string_view v) { c.dump = parse_bool(v); },
          [](const Config& c) { return format_bool(c.dump); }),
      row(
          "JOULE_CONFIG_FILE", "path", "a path to a file of KEY=VALUE lines",
          "configuration file read before the environment overrides",
          [](Config& c, std::string_view v) { c.file = std::string(v); },
          [](const Config& c) { return c.file; }),
  };
}

static std::vector<ConfigKey>& table() {
  static std::vector<ConfigKey> keys = core_config_keys();
  return keys;
}

static std::vector<ConfigSection>& sections() {
  static std::vector<ConfigSection> added;
  return added;
}

static std::vector<ConfigSectionInfo>& section_infos() {
  static std::vector<ConfigSectionInfo> infos{{"core", 0, core_config_keys().size()}};
  return infos;
}

const std::vector<ConfigKey>& config_keys() { return table(); }

const ConfigKey* find_config_key(std::string_view name) {
  for (const auto& k : table()) {
    if (name == k.name) return &k;
    for (const auto& a : k.aliases)
      if (name == a) return &k;
  }
  return nullptr;
}

std::vector<ConfigSectionInfo> config_sections() { return section_infos(); }

void add_config_section(ConfigSection section, const char* title) {
  if (std::find(sections().begin(), sections().end(), section) != sections().end()) return;
  sections().push_back(section);
  const std::size_t first = table().size();
  for (auto& k : section()) table().push_back(k);
  section_infos().push_back({title, first, table().size() - first});
}

}  // namespace joule::core
