// Helpers for the joule-sim tests: a scenario from a shipped file plus
// overrides, relative changes, and running the tool.
#pragma once

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "engine.hpp"
#include "scenario.hpp"
#include "temp_dir.hpp"

namespace joule::sim::test {

inline Scenario scenario(const std::string& file, const std::vector<std::string>& sets = {}) {
  std::vector<Setting> s;
  if (!file.empty()) s = settings_from_toml(std::string(JOULE_SIM_SCENARIOS) + "/" + file);
  for (const auto& x : sets) s.push_back(setting_from_arg(x));
  return make_scenario(s);
}

// Percent change of x against base.
inline double pct(double x, double base) { return (x / base - 1) * 100; }

struct Pair {
  RunResult run, base;
  double dtime() const { return pct(run.time_s, base.time_s); }
  double denergy() const { return pct(run.energy_j, base.energy_j); }
  double dpower() const { return pct(run.avg_power_w, base.avg_power_w); }
};

// The scenario's policy and policy none on the same platform and workload
// (in the room at its base set point).
inline Pair with_baseline(const Scenario& s) {
  return {run_scenario(s), run_scenario(baseline_of(s))};
}

// stdout of the joule-sim executable with `args`, and its exit status.
inline std::string run_tool(const std::string& args, int* status = nullptr) {
  std::string out;
  FILE* p = popen((std::string(JOULE_SIM_EXE) + " " + args + " 2>&1").c_str(), "r");
  char buf[4096];
  while (p && std::fgets(buf, sizeof buf, p)) out += buf;
  const int rc = p ? pclose(p) : -1;
  if (status) *status = rc;
  return out;
}

// The error a scenario (TOML text plus --set overrides) is refused with,
// or "" when it is accepted.
inline std::string error_of(const std::string& toml, const std::vector<std::string>& sets = {}) {
  const joule_test::TempDir dir;
  const std::string path = dir.file("scenario.toml");
  std::ofstream(path) << toml;
  try {
    std::vector<Setting> s = settings_from_toml(path);
    for (const auto& x : sets) s.push_back(setting_from_arg(x));
    make_scenario(s);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

inline bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace joule::sim::test
