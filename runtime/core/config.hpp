// The one configuration of the runtime: filled from JOULE_* environment
// variables, an optional KEY=VALUE file and explicit overrides, validated
// once at start-up. Nothing else in joule reads the environment.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "section_store.hpp"
#include "text.hpp"

namespace joule::core {

using Settings = std::vector<std::pair<std::string, std::string>>;

// The core's own settings, and one settings struct per layer (each layer
// declares its struct and its keys in its own folder: key_table.hpp).
struct Config {
  // The core's own keys (config_keys.cpp). The process's CPUs are here
  // because the engine and the lending layer both need them.
  std::vector<int> cpus;  // JOULE_CPUS; empty: the process affinity mask
  bool report = false;    // JOULE_REPORT: print the end-of-run report
  bool dump = false;      // JOULE_CONFIG_DUMP
  std::string file;       // JOULE_CONFIG_FILE

  // The MPI launcher's rank (OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK,
  // SLURM_PROCID), or -1: read here so that no other layer reads the
  // environment.
  static int launcher_rank();
  // $XDG_RUNTIME_DIR/joule or /run/joule: where DVFS state files go unless
  // JOULE_STATE_DIR says otherwise.
  static std::string default_state_dir();

  // A layer's settings struct (its defaults until a key sets it).
  template <class S>
  S& get() {
    return sections_.get<S>();
  }
  template <class S>
  const S& get() const {
    return sections_.get<S>();
  }

  // Environment, then the file named by JOULE_CONFIG_FILE, then overrides
  // (later wins). Throws joule::error(JOULE_ERR_CONFIG) on any bad key/value,
  // and when one source (the environment, the file or the overrides) sets a
  // key under both its name and an alias to different values.
  static Config load(const Settings& overrides);
  // Applies one KEY=VALUE (KEY may be an alias: it sets the key it names);
  // `where` prefixes the error (e.g. "file:3: ").
  void set(std::string_view key, std::string_view value, const std::string& where = "");
  std::string dump_text() const;

 private:
  SectionStore sections_;
};

// One row per key: the single table that parsing, validation, the dump,
// joule-config and docs/configuration.md share. Layers build their rows with
// KeyTable (key_table.hpp).
struct ConfigKey {
  std::string name;
  std::function<std::string()> allowed;  // human description of the allowed values
  std::string help;
  std::function<void(Config&, std::string_view)> set;  // throws std::invalid_argument
  std::function<std::string(const Config&)> get;
  std::string type;  // boolean, integer, number, choice, list, text, path
  // Old names still accepted for this key (from the environment, the file
  // and overrides), so that scripts written before a rename keep working.
  // The dump, joule-config and the docs print `name`; each alias is listed
  // beside it in docs/configuration.md.
  std::vector<std::string> aliases;
};

// The whole table: the core keys, then every section added so far. Each
// layer owns the keys of its section (engine, scheduler, platform, trace,
// lending) and api/ adds them once, before the first start.
const std::vector<ConfigKey>& config_keys();
// The key called `name`, by its name or by one of its aliases; nullptr when
// no key answers to it.
const ConfigKey* find_config_key(std::string_view name);
std::vector<ConfigKey> core_config_keys();
using ConfigSection = std::vector<ConfigKey> (*)();
// Appends a section's keys (a section added twice is added once). `title`
// names the section in generated documentation (joule-config --markdown).
void add_config_section(ConfigSection section, const char* title = "other");

// The sections in the order they were added, "core" first: each a title and
// its keys' range in config_keys().
struct ConfigSectionInfo {
  std::string title;
  std::size_t first = 0, count = 0;
};
std::vector<ConfigSectionInfo> config_sections();

// Helpers the key tables share; exposed for tests.
bool parse_bool(std::string_view v);
std::string format_bool(bool b);
std::string bool_values();  // the allowed spellings, for ConfigKey::allowed
std::int64_t parse_int(std::string_view v, std::int64_t lo, std::int64_t hi);
double parse_double(std::string_view v, double lo, double hi);  // finite, a leading + allowed
// A size with an optional B, K, M or G suffix (any case; `unit` bytes when
// none, as OMP_STACKSIZE counts KiB), 1 byte .. 1 TiB.
std::uint64_t parse_size(std::string_view v, std::uint64_t unit);
std::string format_double(double x);  // %g

}  // namespace joule::core
