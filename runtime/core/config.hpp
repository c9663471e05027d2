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

struct Config {
  // The platform layer: DVFS, energy meters, thermal sensors, counters
  // (keys in config_keys_platform.cpp).
  struct Platform {
    std::string dvfs = "auto";                 // JOULE_DVFS: auto | none | emulated | cpufreq
    std::string dvfs_domain = "auto";          // JOULE_DVFS_DOMAIN: auto | core | chip
    std::string pstates_spec = "1.2-2.4:0.1";  // JOULE_PSTATES (GHz), as given
    std::vector<std::uint32_t> pstates_khz = default_pstates_khz();  // the spec, parsed
    int dvfs_latency_us = 10;  // JOULE_DVFS_LATENCY_US (emulated)
    std::string dvfs_start;    // JOULE_DVFS_START: "" (as found), min, max or GHz
    std::vector<std::pair<std::string, double>> memory_bound;  // JOULE_MEMORY_BOUND
    double memory_bound_default = 0.0;                         //   "*" entry
    std::string sysfs_root = "/";                              // JOULE_SYSFS_ROOT
    std::string topology;        // JOULE_TOPOLOGY: hwloc synthetic; empty = this machine
    std::string meter = "auto";  // JOULE_METER: auto | model | rapl | papi
    // JOULE_POWER_BUSY: (GHz, W) of one busy core, Padoin's thesis §5.1.1.
    std::vector<std::pair<double, double>> power_busy = {{1.2, 20.4}, {2.4, 36.3}};
    double power_idle = 14.52;     // JOULE_POWER_IDLE: W per sleeping core
    double power_uncore = 0.0;     // JOULE_POWER_UNCORE: W per chip
    std::string thermal = "auto";  // JOULE_THERMAL: auto | model | hwmon
    struct Rc {                    // JOULE_THERMAL_MODEL
      double air = 22.0, alpha = 1.0, beta = 0.6, gamma = 0.0, tau_s = 20.0;
    } rc;
    std::vector<std::pair<int, double>> hotspots;  // JOULE_THERMAL_HOTSPOT chip:+K
    std::string counters = "none";                 // JOULE_COUNTERS: none | papi
    std::vector<std::string> counter_events = {"PAPI_TOT_CYC", "PAPI_TOT_INS", "PAPI_L3_TCM",
                                               "perf::TASK-CLOCK"};
    std::string state_dir;  // JOULE_STATE_DIR; empty: default_state_dir()
    // $XDG_RUNTIME_DIR/joule or /run/joule: read here so that the platform
    // layer never reads the environment.
    static std::string default_state_dir();
    // The P-state table in kHz, ascending.
    const std::vector<std::uint32_t>& pstate_table() const noexcept { return pstates_khz; }
    // 1.2 to 2.4 GHz in 0.1 GHz steps: the platform of Padoin's thesis.
    static std::vector<std::uint32_t> default_pstates_khz();
  } platform;

  // The energy policy: what decides frequencies, affinity-key mappings and
  // how many cores to use (keys in scheduler/energy/config_keys_energy.cpp;
  // reference: docs/configuration.md, "Energy policy").
  struct Energy {
    std::string policy = "auto";     // JOULE_ENERGY_POLICY: auto | none | fg-energylb | ...
    double threshold = 0.0;          // JOULE_ENERGY_THRESHOLD: max/min load ratio; 0 = fmax/fmin
    std::string quantise = "ceil";   // JOULE_ENERGY_QUANTISE: ceil | round
    std::string load_norm = "work";  // JOULE_ENERGY_LOAD_NORM: work | as-written
    std::string balancer = "none";   // JOULE_ENERGY_BALANCER: none | greedy | refine
    std::string on_balance =
        "either";               // JOULE_ENERGY_ON_BALANCE: either | reset-max | lb-then-dvfs
    int period = 1;             // JOULE_ENERGY_PERIOD: iterations between decisions
    int window_ms = 20;         // JOULE_ENERGY_WINDOW_MS: queue-depth's sliding window
    double time_budget = 0.01;  // JOULE_ENERGY_TIME_BUDGET: allowed slowdown (fraction)
    double t_max_c = 0.0;       // JOULE_ENERGY_T_MAX: templb's limit, Celsius; 0 = off
    double tolerance = 0.03;    // JOULE_ENERGY_TOLERANCE: templb's refine tolerance
    int mpi_slack_us = 500;     // JOULE_ENERGY_MPI_SLACK_US: blocking time before slowing
    std::string splitter_objective = "energy";  // JOULE_ENERGY_SPLIT_OBJECTIVE: energy | time | edp
    bool masks = true;  // JOULE_ENERGY_MASKS: the policy may park / lend cores
  } energy;

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
  // (later wins). Throws joule::error(JOULE_ERR_CONFIG) on any bad key/value.
  static Config load(const Settings& overrides);
  // Applies one KEY=VALUE; `where` prefixes the error (e.g. "file:3: ").
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
};

// The whole table: the core keys, then every section added so far. Each
// layer owns the keys of its section (engine, scheduler, platform, trace,
// lending) and api/ adds them once, before the first start.
const std::vector<ConfigKey>& config_keys();
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
std::string format_double(double x);                            // %g

}  // namespace joule::core
