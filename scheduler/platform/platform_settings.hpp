// The platform layer's settings: DVFS, energy meters, thermal sensors and
// counters (keys in config_keys_platform.cpp; docs/platform.md).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "choices.hpp"
#include "config.hpp"

namespace joule::platform {

enum class DvfsKind { automatic, none, emulated, cpufreq, service };
inline constexpr std::pair<const char*, DvfsKind> kDvfsKinds[] = {{"auto", DvfsKind::automatic},
                                                                  {"none", DvfsKind::none},
                                                                  {"emulated", DvfsKind::emulated},
                                                                  {"cpufreq", DvfsKind::cpufreq},
                                                                  {"service", DvfsKind::service}};

enum class DvfsDomain { automatic, core, chip };
inline constexpr std::pair<const char*, DvfsDomain> kDvfsDomains[] = {
    {"auto", DvfsDomain::automatic}, {"core", DvfsDomain::core}, {"chip", DvfsDomain::chip}};

enum class MeterKind { automatic, model, rapl, papi, service };
inline constexpr std::pair<const char*, MeterKind> kMeterKinds[] = {
    {"auto", MeterKind::automatic},
    {"model", MeterKind::model},
    {"rapl", MeterKind::rapl},
    {"papi", MeterKind::papi},
    {"service", MeterKind::service}};

enum class ThermalKind { automatic, model, hwmon };
inline constexpr std::pair<const char*, ThermalKind> kThermalKinds[] = {
    {"auto", ThermalKind::automatic}, {"model", ThermalKind::model}, {"hwmon", ThermalKind::hwmon}};

enum class CounterKind { none, papi };
inline constexpr std::pair<const char*, CounterKind> kCounterKinds[] = {
    {"none", CounterKind::none}, {"papi", CounterKind::papi}};

// 1.2 to 2.4 GHz in 0.1 GHz steps, in kHz: the platform of Padoin's thesis
// (Energy-Aware Load Balancing Approaches to Improve Energy Efficiency on
// HPC Systems, §5.1.1).
std::vector<std::uint32_t> default_pstates_khz();

struct PlatformSettings {
  DvfsKind dvfs = DvfsKind::automatic;                             // JOULE_DVFS
  DvfsDomain dvfs_domain = DvfsDomain::automatic;                  // JOULE_DVFS_DOMAIN
  std::string pstates_spec = "1.2-2.4:0.1";                        // JOULE_PSTATES (GHz), as given
  std::vector<std::uint32_t> pstates_khz = default_pstates_khz();  // the spec, parsed, ascending
  int dvfs_latency_us = 10;  // JOULE_DVFS_LATENCY_US (emulated)
  std::string dvfs_start;    // JOULE_DVFS_START: "" (as found), min, max or GHz
  std::vector<std::pair<std::string, double>> memory_bound;  // JOULE_MEMORY_BOUND
  double memory_bound_default = 0.0;                         //   "*" entry
  std::string sysfs_root = "/";                              // JOULE_SYSFS_ROOT
  std::string topology;                    // JOULE_TOPOLOGY: hwloc synthetic; empty = this machine
  MeterKind meter = MeterKind::automatic;  // JOULE_METER
  // JOULE_POWER_BUSY: (GHz, W) of one busy core, Padoin's thesis §5.1.1.
  std::vector<std::pair<double, double>> power_busy = {{1.2, 20.4}, {2.4, 36.3}};
  double power_idle = 14.52;                     // JOULE_POWER_IDLE: W per sleeping core
  double power_uncore = 0.0;                     // JOULE_POWER_UNCORE: W per chip
  ThermalKind thermal = ThermalKind::automatic;  // JOULE_THERMAL
  struct Rc {                                    // JOULE_THERMAL_MODEL
    double air = 22.0, alpha = 1.0, beta = 0.6, gamma = 0.0, tau_s = 20.0;
  } rc;
  std::vector<std::pair<int, double>> hotspots;  // JOULE_THERMAL_HOTSPOT chip:+K
  CounterKind counters = CounterKind::none;      // JOULE_COUNTERS
  std::vector<std::string> counter_events = {"PAPI_TOT_CYC", "PAPI_TOT_INS", "PAPI_L3_TCM",
                                             "perf::TASK-CLOCK"};
  std::string state_dir;       // JOULE_STATE_DIR; empty: core::Config::default_state_dir()
  std::string service_socket;  // JOULE_SERVICE_SOCKET; empty: service_client::kDefaultSocket
  std::string slurm_job_id;    // SLURM_JOB_ID (set by Slurm): the job jouled records

  const std::vector<std::uint32_t>& pstate_table() const noexcept { return pstates_khz; }
  std::string state_folder() const {
    return state_dir.empty() ? core::Config::default_state_dir() : state_dir;
  }
};

std::vector<core::ConfigKey> platform_config_keys();

}  // namespace joule::platform
