// Keys of the platform layer (DVFS, meters, thermal, counters). Each row
// sets a member of Config::platform; docs/platform.md explains them.
#include <hwloc.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "config.hpp"

namespace joule::platform {

using core::Config;
using core::ConfigKey;
using core::parse_int;
using core::trim;
namespace {

std::vector<std::string_view> split(std::string_view v, char sep) {
  std::vector<std::string_view> out;
  v = trim(v);
  while (!v.empty()) {
    auto p = v.find(sep);
    out.push_back(trim(v.substr(0, p)));
    v = p == std::string_view::npos ? std::string_view{} : v.substr(p + 1);
  }
  return out;
}

double parse_double(std::string_view v, double lo, double hi) {
  v = trim(v);
  if (!v.empty() && v.front() == '+') v.remove_prefix(1);
  double x = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || ec != std::errc() || p != v.data() + v.size() || !std::isfinite(x))
    throw std::invalid_argument("not a number: '" + std::string(v) + "'");
  if (x < lo || x > hi) throw std::invalid_argument("out of range: " + std::string(v));
  return x;
}

std::string fmt(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

std::uint32_t ghz_to_khz(double ghz) { return std::uint32_t(std::llround(ghz * 1e6)); }

// "1.2-2.4:0.1" (range and step) or "1.2,1.6,2.4" (a list), in GHz.
std::vector<std::uint32_t> parse_pstates(std::string_view v) {
  std::vector<std::uint32_t> out;
  v = trim(v);
  const auto dash = v.find('-');
  if (dash != std::string_view::npos && dash > 0) {
    const auto colon = v.find(':');
    if (colon == std::string_view::npos || colon < dash)
      throw std::invalid_argument("a range needs a step: LO-HI:STEP");
    const double lo = parse_double(v.substr(0, dash), 0.01, 20);
    const double hi = parse_double(v.substr(dash + 1, colon - dash - 1), lo, 20);
    const double step = parse_double(v.substr(colon + 1), 0.001, 20);
    if ((hi - lo) / step > 255) throw std::invalid_argument("more than 256 P-states");
    for (double f = lo; f <= hi + step * 1e-6; f += step) out.push_back(ghz_to_khz(f));
  } else {
    for (auto item : split(v, ',')) out.push_back(ghz_to_khz(parse_double(item, 0.01, 20)));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  if (out.empty() || out.size() > 256) throw std::invalid_argument("1 to 256 P-states needed");
  return out;
}

void set_choice(std::string& dst, std::string_view v, std::initializer_list<const char*> ok) {
  for (const char* o : ok)
    if (v == o) {
      dst = o;
      return;
    }
  throw std::invalid_argument("unknown value");
}

void set_memory_bound(Config& c, std::string_view v) {
  std::vector<std::pair<std::string, double>> out;
  double def = 0.0;
  for (auto item : split(v, ',')) {
    const auto colon = item.rfind(':');
    if (colon == std::string_view::npos || colon == 0)
      throw std::invalid_argument("expected LABEL:FRACTION");
    const double m = parse_double(item.substr(colon + 1), 0.0, 1.0);
    const std::string label(trim(item.substr(0, colon)));
    if (label == "*")
      def = m;
    else
      out.emplace_back(label, m);
  }
  c.platform.memory_bound = std::move(out);
  c.platform.memory_bound_default = def;
}

std::string get_memory_bound(const Config& c) {
  std::string out;
  for (const auto& [l, m] : c.platform.memory_bound)
    out += (out.empty() ? "" : ",") + l + ":" + fmt(m);
  if (c.platform.memory_bound_default != 0.0)
    out += (out.empty() ? "*:" : ",*:") + fmt(c.platform.memory_bound_default);
  return out;
}

void set_power_busy(Config& c, std::string_view v) {
  std::vector<std::pair<double, double>> pts;
  for (auto item : split(v, ',')) {
    const auto colon = item.find(':');
    if (colon == std::string_view::npos) throw std::invalid_argument("expected GHZ:WATTS");
    pts.emplace_back(parse_double(item.substr(0, colon), 0.01, 20),
                     parse_double(item.substr(colon + 1), 0.0, 10000));
  }
  std::sort(pts.begin(), pts.end());
  for (std::size_t i = 1; i < pts.size(); ++i)
    if (pts[i].first == pts[i - 1].first) throw std::invalid_argument("repeated frequency");
  if (pts.empty()) throw std::invalid_argument("at least one point needed");
  c.platform.power_busy = std::move(pts);
}

std::string get_power_busy(const Config& c) {
  std::string out;
  for (const auto& [f, w] : c.platform.power_busy)
    out += (out.empty() ? "" : ",") + fmt(f) + ":" + fmt(w);
  return out;
}

void set_rc(Config& c, std::string_view v) {
  Config::Platform::Rc rc = c.platform.rc;
  for (auto item : split(v, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string_view::npos) throw std::invalid_argument("expected NAME=VALUE");
    const auto name = trim(item.substr(0, eq));
    const auto val = item.substr(eq + 1);
    if (name == "air")
      rc.air = parse_double(val, -50, 150);
    else if (name == "alpha")
      rc.alpha = parse_double(val, 0, 100);
    else if (name == "beta")
      rc.beta = parse_double(val, 0, 100);
    else if (name == "gamma")
      rc.gamma = parse_double(val, -200, 200);
    else if (name == "tau")
      rc.tau_s = parse_double(val, 0.001, 1e6);
    else
      throw std::invalid_argument("unknown parameter " + std::string(name));
  }
  c.platform.rc = rc;
}

std::string get_rc(const Config& c) {
  const auto& r = c.platform.rc;
  return "air=" + fmt(r.air) + ",alpha=" + fmt(r.alpha) + ",beta=" + fmt(r.beta) +
         ",gamma=" + fmt(r.gamma) + ",tau=" + fmt(r.tau_s);
}

void set_hotspots(Config& c, std::string_view v) {
  std::vector<std::pair<int, double>> out;
  for (auto item : split(v, ',')) {
    const auto colon = item.find(':');
    if (colon == std::string_view::npos) throw std::invalid_argument("expected CHIP:KELVIN");
    out.emplace_back(int(parse_int(item.substr(0, colon), 0, 65535)),
                     parse_double(item.substr(colon + 1), -100, 100));
  }
  c.platform.hotspots = std::move(out);
}

std::string get_hotspots(const Config& c) {
  std::string out;
  for (const auto& [chip, k] : c.platform.hotspots)
    out += (out.empty() ? "" : ",") + std::to_string(chip) + ":" + fmt(k);
  return out;
}

void set_events(Config& c, std::string_view v) {
  std::vector<std::string> out;
  for (auto item : split(v, ',')) {
    if (item.empty()) throw std::invalid_argument("empty event name");
    out.emplace_back(item);
  }
  if (out.empty()) throw std::invalid_argument("at least one event needed");
  c.platform.counter_events = std::move(out);
}

std::string get_events(const Config& c) {
  std::string out;
  for (const auto& e : c.platform.counter_events) out += (out.empty() ? "" : ",") + e;
  return out;
}

void set_topology(Config& c, std::string_view v) {
  const std::string s(trim(v));
  if (!s.empty()) {
    hwloc_topology_t t = nullptr;
    hwloc_topology_init(&t);
    const int rc = hwloc_topology_set_synthetic(t, s.c_str());
    hwloc_topology_destroy(t);
    if (rc != 0) throw std::invalid_argument("not a valid hwloc synthetic description");
  }
  c.platform.topology = s;
}

std::string str(const char* s) { return s; }

}  // namespace

// Built at each call, not at static initialisation: api/ adds the sections
// from a static initialiser of its own.
std::vector<core::ConfigKey> platform_config_keys() {
  return {
      {"JOULE_DVFS", [] { return str("auto, none, emulated, cpufreq"); },
       "DVFS backend; auto = cpufreq when writable, else none",
       [](Config& c, std::string_view v) {
         set_choice(c.platform.dvfs, v, {"auto", "none", "emulated", "cpufreq"});
       },
       [](const Config& c) { return c.platform.dvfs; }},
      {"JOULE_DVFS_DOMAIN", [] { return str("auto, core, chip"); },
       "frequency domain: per core, per chip (package), or auto (cpufreq: related_cpus; emulated: "
       "core)",
       [](Config& c, std::string_view v) {
         set_choice(c.platform.dvfs_domain, v, {"auto", "core", "chip"});
       },
       [](const Config& c) { return c.platform.dvfs_domain; }},
      {"JOULE_PSTATES",
       [] { return str("GHz as LO-HI:STEP (e.g. 1.2-2.4:0.1) or a list (e.g. 1.2,1.8,2.4)"); },
       "P-state table of the emulated backend (and of the power model with dvfs=none)",
       [](Config& c, std::string_view v) {
         c.platform.pstates_khz = parse_pstates(v);
         c.platform.pstates_spec = std::string(trim(v));
       },
       [](const Config& c) { return c.platform.pstates_spec; }},
      {"JOULE_DVFS_LATENCY_US", [] { return str("an integer 0..100000 (microseconds)"); },
       "emulated frequency-change latency: the core stalls this long after a change",
       [](Config& c, std::string_view v) {
         c.platform.dvfs_latency_us = int(parse_int(v, 0, 100000));
       },
       [](const Config& c) { return std::to_string(c.platform.dvfs_latency_us); }},
      {"JOULE_DVFS_START",
       [] { return str("empty (leave as found), min, max, or a frequency in GHz"); },
       "frequency every worker's CPU is set to when the runtime starts",
       [](Config& c, std::string_view v) {
         v = trim(v);
         if (!v.empty() && v != "min" && v != "max") parse_double(v, 0.01, 20);
         c.platform.dvfs_start = std::string(v);
       },
       [](const Config& c) { return c.platform.dvfs_start; }},
      {"JOULE_MEMORY_BOUND",
       [] {
         return str(
             "LABEL:FRACTION list, fractions 0..1, '*' for other labels (e.g. lu:0.3,*:0.1)");
       },
       "memory-bound fraction per task label: the part of a task that emulated DVFS does not slow",
       set_memory_bound, get_memory_bound},
      {"JOULE_SYSFS_ROOT", [] { return str("a directory path (default /)"); },
       "root under which /sys paths (cpufreq, powercap, hwmon, thermal) are read and written",
       [](Config& c, std::string_view v) {
         if (trim(v).empty()) throw std::invalid_argument("empty path");
         c.platform.sysfs_root = std::string(trim(v));
       },
       [](const Config& c) { return c.platform.sysfs_root; }},
      {"JOULE_TOPOLOGY",
       [] {
         return str(
             "empty (this machine) or an hwloc synthetic description such as 'package:2 core:4 "
             "pu:1'");
       },
       "machine model for chips and cores; CPU i of the process maps to PU i mod N", set_topology,
       [](const Config& c) { return c.platform.topology; }},
      {"JOULE_METER", [] { return str("auto, model, rapl, papi"); },
       "energy meter; auto = RAPL powercap if readable, else PAPI energy events, else the power "
       "model",
       [](Config& c, std::string_view v) {
         set_choice(c.platform.meter, v, {"auto", "model", "rapl", "papi"});
       },
       [](const Config& c) { return c.platform.meter; }},
      {"JOULE_POWER_BUSY",
       [] {
         return str("GHZ:WATTS list of one busy core, at least one point (e.g. 1.2:20.4,2.4:36.3)");
       },
       "power model: busy power per core, interpolated linearly in f^3 between points",
       set_power_busy, get_power_busy},
      {"JOULE_POWER_IDLE", [] { return str("watts 0..10000"); }, "power model: a sleeping core",
       [](Config& c, std::string_view v) { c.platform.power_idle = parse_double(v, 0, 10000); },
       [](const Config& c) { return fmt(c.platform.power_idle); }},
      {"JOULE_POWER_UNCORE", [] { return str("watts 0..10000"); },
       "power model: per chip, always drawn",
       [](Config& c, std::string_view v) { c.platform.power_uncore = parse_double(v, 0, 10000); },
       [](const Config& c) { return fmt(c.platform.power_uncore); }},
      {"JOULE_THERMAL", [] { return str("auto, model, hwmon"); },
       "temperature source; auto = hwmon / thermal zones when they name chips, else the RC model",
       [](Config& c, std::string_view v) {
         set_choice(c.platform.thermal, v, {"auto", "model", "hwmon"});
       },
       [](const Config& c) { return c.platform.thermal; }},
      {"JOULE_THERMAL_MODEL",
       [] { return str("NAME=VALUE list of air, alpha, beta, gamma, tau (seconds)"); },
       "RC model per chip: steady T = alpha*air + beta*P_chip + gamma, time constant tau", set_rc,
       get_rc},
      {"JOULE_THERMAL_HOTSPOT", [] { return str("CHIP:KELVIN list (e.g. 1:11), or empty"); },
       "RC model: extra inlet temperature of some chips (a hot spot)", set_hotspots, get_hotspots},
      {"JOULE_COUNTERS", [] { return str("none, papi"); },
       "per-task hardware counters, aggregated per label",
       [](Config& c, std::string_view v) {
         set_choice(c.platform.counters, v, {"none", "papi"});
       },
       [](const Config& c) { return c.platform.counters; }},
      {"JOULE_COUNTER_EVENTS", [] { return str("comma-separated PAPI event names"); },
       "events tried for JOULE_COUNTERS=papi; those the machine lacks are skipped", set_events,
       get_events},
      {"JOULE_STATE_DIR",
       [] { return str("a directory path (empty: $XDG_RUNTIME_DIR/joule or /run/joule)"); },
       "where the DVFS state file lives, for repair after a killed process (joule-ctl restore)",
       [](Config& c, std::string_view v) { c.platform.state_dir = std::string(trim(v)); },
       [](const Config& c) { return c.platform.state_dir; }},
  };
}

}  // namespace joule::platform
