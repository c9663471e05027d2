// Keys of the platform layer (DVFS, meters, thermal, counters):
// PlatformSettings' rows; docs/platform.md explains them.
#include <hwloc.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "key_table.hpp"
#include "platform_settings.hpp"

namespace joule::platform {

using core::Config;
using core::ConfigKey;
using core::parse_double;
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

std::string fmt(double x) { return core::format_double(x); }

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

void set_memory_bound(PlatformSettings& p, std::string_view v) {
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
  p.memory_bound = std::move(out);
  p.memory_bound_default = def;
}

std::string get_memory_bound(const PlatformSettings& p) {
  std::string out;
  for (const auto& [l, m] : p.memory_bound) out += (out.empty() ? "" : ",") + l + ":" + fmt(m);
  if (p.memory_bound_default != 0.0)
    out += (out.empty() ? "*:" : ",*:") + fmt(p.memory_bound_default);
  return out;
}

void set_power_busy(PlatformSettings& p, std::string_view v) {
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
  p.power_busy = std::move(pts);
}

std::string get_power_busy(const PlatformSettings& p) {
  std::string out;
  for (const auto& [f, w] : p.power_busy) out += (out.empty() ? "" : ",") + fmt(f) + ":" + fmt(w);
  return out;
}

void set_rc(PlatformSettings& p, std::string_view v) {
  PlatformSettings::Rc rc = p.rc;
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
  p.rc = rc;
}

std::string get_rc(const PlatformSettings& p) {
  const auto& r = p.rc;
  return "air=" + fmt(r.air) + ",alpha=" + fmt(r.alpha) + ",beta=" + fmt(r.beta) +
         ",gamma=" + fmt(r.gamma) + ",tau=" + fmt(r.tau_s);
}

void set_hotspots(PlatformSettings& p, std::string_view v) {
  std::vector<std::pair<int, double>> out;
  for (auto item : split(v, ',')) {
    const auto colon = item.find(':');
    if (colon == std::string_view::npos) throw std::invalid_argument("expected CHIP:KELVIN");
    out.emplace_back(int(parse_int(item.substr(0, colon), 0, 65535)),
                     parse_double(item.substr(colon + 1), -100, 100));
  }
  p.hotspots = std::move(out);
}

std::string get_hotspots(const PlatformSettings& p) {
  std::string out;
  for (const auto& [chip, k] : p.hotspots)
    out += (out.empty() ? "" : ",") + std::to_string(chip) + ":" + fmt(k);
  return out;
}

void set_events(PlatformSettings& p, std::string_view v) {
  std::vector<std::string> out;
  for (auto item : split(v, ',')) {
    if (item.empty()) throw std::invalid_argument("empty event name");
    out.emplace_back(item);
  }
  if (out.empty()) throw std::invalid_argument("at least one event needed");
  p.counter_events = std::move(out);
}

std::string get_events(const PlatformSettings& p) {
  std::string out;
  for (const auto& e : p.counter_events) out += (out.empty() ? "" : ",") + e;
  return out;
}

void set_topology(PlatformSettings& p, std::string_view v) {
  const std::string s(trim(v));
  if (core::synthetic_pu_count(s, core::kMaxSyntheticPus) > core::kMaxSyntheticPus)
    throw std::invalid_argument("more than " + std::to_string(core::kMaxSyntheticPus) +
                                " PUs (the product of the level counts)");
  if (!s.empty()) {
    hwloc_topology_t t = nullptr;
    hwloc_topology_init(&t);
    const int rc = hwloc_topology_set_synthetic(t, s.c_str());
    hwloc_topology_destroy(t);
    if (rc != 0) throw std::invalid_argument("not a valid hwloc synthetic description");
  }
  p.topology = s;
}

}  // namespace

std::vector<std::uint32_t> default_pstates_khz() {
  std::vector<std::uint32_t> khz;
  for (std::uint32_t f = 1200000; f <= 2400000; f += 100000) khz.push_back(f);
  return khz;
}

namespace {

using S = PlatformSettings;
using core::Choices;

// DVFS: the backend, its domains, P-states and start frequency, and what
// memory-bound tasks lose to a lower frequency.
void add_dvfs_keys(core::KeyTable<S>& t) {
  t.choice("JOULE_DVFS", &S::dvfs, Choices<DvfsKind>(kDvfsKinds),
           "DVFS backend; auto = cpufreq when writable (root), else jouled (service) when its "
           "socket answers hello, else none");
  t.choice("JOULE_DVFS_DOMAIN", &S::dvfs_domain, Choices<DvfsDomain>(kDvfsDomains),
           "frequency domain: per core, per chip (package), or auto (cpufreq: related_cpus; "
           "emulated: core)");
  t.custom(
      "JOULE_PSTATES", "list", "GHz as LO-HI:STEP (e.g. 1.2-2.4:0.1) or a list (e.g. 1.2,1.8,2.4)",
      "P-state table of the emulated backend (and of the power model with dvfs=none)",
      [](S& p, std::string_view v) {
        p.pstates_khz = parse_pstates(v);
        p.pstates_spec = std::string(trim(v));
      },
      [](const S& p) { return p.pstates_spec; });
  t.integer("JOULE_DVFS_LATENCY_US", &S::dvfs_latency_us, 0, 100000,
            "emulated frequency-change latency: the core stalls this long after a change",
            "microseconds");
  t.custom(
      "JOULE_DVFS_START", "text", "empty (leave as found), min, max, or a frequency in GHz",
      "frequency every worker's CPU is set to when the runtime starts",
      [](S& p, std::string_view v) {
        v = trim(v);
        if (!v.empty() && v != "min" && v != "max") parse_double(v, 0.01, 20);
        p.dvfs_start = std::string(v);
      },
      [](const S& p) { return p.dvfs_start; });
  t.custom("JOULE_MEMORY_BOUND", "list",
           "LABEL:FRACTION list, fractions 0..1, '*' for other labels (e.g. lu:0.3,*:0.1)",
           "memory-bound fraction per task label: the part of a task that emulated DVFS does "
           "not slow",
           set_memory_bound, get_memory_bound);
  t.custom(
      "JOULE_SYSFS_ROOT", "path", "a directory path (default /)",
      "root under which /sys paths (cpufreq, powercap, hwmon, thermal) are read and written",
      [](S& p, std::string_view v) {
        if (trim(v).empty()) throw std::invalid_argument("empty path");
        p.sysfs_root = std::string(trim(v));
      },
      [](const S& p) { return p.sysfs_root; });
}

// The machine model and the energy meter with its power model.
void add_power_keys(core::KeyTable<S>& t) {
  t.custom("JOULE_TOPOLOGY", "text",
           "empty (this machine) or an hwloc synthetic description such as 'package:2 core:4 "
           "pu:1', at most 65536 PUs in all",
           "machine model for chips and cores; CPU i of the process maps to PU i mod N",
           set_topology, [](const S& p) { return p.topology; });
  t.choice("JOULE_METER", &S::meter, Choices<MeterKind>(kMeterKinds),
           "energy meter; auto = RAPL powercap if readable, else jouled (service) if it grants "
           "energy, else PAPI energy events, else the power model");
  t.custom("JOULE_POWER_BUSY", "list",
           "GHZ:WATTS list of one busy core, at least one point (e.g. 1.2:20.4,2.4:36.3)",
           "power model: busy power per core, interpolated linearly in f^3 between points",
           set_power_busy, get_power_busy);
  t.number("JOULE_POWER_IDLE", &S::power_idle, 0, 10000, "power model: a sleeping core", "watts");
  t.number("JOULE_POWER_UNCORE", &S::power_uncore, 0, 10000, "power model: per chip, always drawn",
           "watts");
}

// Temperatures, counters and where DVFS state files go.
void add_sensor_keys(core::KeyTable<S>& t) {
  t.choice("JOULE_THERMAL", &S::thermal, Choices<ThermalKind>(kThermalKinds),
           "temperature source; auto = hwmon / thermal zones when they name chips, else the RC "
           "model");
  t.custom("JOULE_THERMAL_MODEL", "list",
           "NAME=VALUE list of air, alpha, beta, gamma, tau (seconds)",
           "RC model per chip: steady T = alpha*air + beta*P_chip + gamma, time constant tau",
           set_rc, get_rc);
  t.custom("JOULE_THERMAL_HOTSPOT", "list", "CHIP:KELVIN list (e.g. 1:11), or empty",
           "RC model: extra inlet temperature of some chips (a hot spot)", set_hotspots,
           get_hotspots);
  t.choice("JOULE_COUNTERS", &S::counters, Choices<CounterKind>(kCounterKinds),
           "per-task hardware counters, aggregated per label");
  t.custom("JOULE_COUNTER_EVENTS", "list", "comma-separated PAPI event names",
           "events tried for JOULE_COUNTERS=papi; those the machine lacks are skipped", set_events,
           get_events);
  t.custom(
      "JOULE_STATE_DIR", "path", "a directory path (empty: $XDG_RUNTIME_DIR/joule or /run/joule)",
      "where the DVFS state file lives, for repair after a killed process (joule-ctl restore)",
      [](S& p, std::string_view v) { p.state_dir = std::string(trim(v)); },
      [](const S& p) { return p.state_dir; });
}

// SLURM_JOB_ID is Slurm's (sbatch/srun set it): digits, plus "_" and "."
// for array and step ids; anything else would be a wrong job record.
void set_job_id(S& p, std::string_view v) {
  v = trim(v);
  if (v.size() > 64) throw std::invalid_argument("longer than 64 characters");
  for (char c : v)
    if (!((c >= '0' && c <= '9') || c == '_' || c == '.'))
      throw std::invalid_argument("not a Slurm job id");
  p.slurm_job_id = std::string(v);
}

// The node service jouled (docs/service.md), for jobs that are not root.
void add_service_keys(core::KeyTable<S>& t) {
  t.custom(
      "JOULE_SERVICE_SOCKET", "path", "a socket path (empty: /run/joule/jouled.sock)",
      "jouled's socket, asked by JOULE_DVFS=service / JOULE_METER=service and by auto",
      [](S& p, std::string_view v) { p.service_socket = std::string(trim(v)); },
      [](const S& p) { return p.service_socket; });
  t.custom("SLURM_JOB_ID", "text", "empty, or a Slurm job id (digits, '_', '.')",
           "set by Slurm, not by users: the job id jouled records this process's changes under",
           set_job_id, [](const S& p) { return p.slurm_job_id; });
}

}  // namespace

std::vector<ConfigKey> platform_config_keys() {
  core::KeyTable<S> t;
  add_dvfs_keys(t);
  add_power_keys(t);
  add_sensor_keys(t);
  add_service_keys(t);
  return t.keys();
}

}  // namespace joule::platform
