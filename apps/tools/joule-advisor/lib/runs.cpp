#include "runs.hpp"

#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

namespace joule::advisor {
namespace {

const std::set<std::string> kKnown = {
    "device", "threads",  "cores",        "threads_per_core", "placement",     "freq_ghz",
    "time_s", "energy_j", "instructions", "cycles",           "mem_stall_frac"};

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw InputError(where + ": " + what);
}

double number(const std::string& where, const std::string& key, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v))
    fail(where, "field '" + key + "': '" + text + "' is not a number");
  return v;
}

double positive(const std::string& where, const std::string& key, const std::string& text) {
  const double v = number(where, key, text);
  if (v <= 0) fail(where, "field '" + key + "': " + text + " must be > 0");
  return v;
}

int count(const std::string& where, const std::string& key, const std::string& text) {
  const double v = positive(where, key, text);
  if (v != std::floor(v)) fail(where, "field '" + key + "': " + text + " must be an integer");
  return static_cast<int>(v);
}

int thread_count(const std::map<std::string, std::string>& f, const std::string& where) {
  if (f.count("threads")) return count(where, "threads", f.at("threads"));
  if (!f.count("cores") || !f.count("threads_per_core"))
    fail(where, "missing 'threads' (or both 'cores' and 'threads_per_core')");
  return count(where, "cores", f.at("cores")) *
         count(where, "threads_per_core", f.at("threads_per_core"));
}

}  // namespace

const char* const kRunColumns =
    "device, threads | cores + threads_per_core, placement, freq_ghz, time_s, energy_j "
    "[, instructions, cycles, mem_stall_frac]";

Device parse_device(const std::string& name) {
  if (name == "host") return Device::host;
  if (name == "card") return Device::card;
  throw std::invalid_argument("unknown device '" + name + "' (allowed: host, card)");
}

const char* device_name(Device d) { return d == Device::host ? "host" : "card"; }

void check_column(const std::string& name, const std::string& where) {
  if (!kKnown.count(name))
    fail(where, "unknown field '" + name + "' (allowed: " + kRunColumns + ")");
}

Run make_run(const std::vector<std::pair<std::string, std::string>>& fields,
             const std::string& where) {
  std::map<std::string, std::string> f;
  for (const auto& [k, v] : fields) {
    check_column(k, where);
    if (!v.empty()) f[k] = v;
  }
  for (const char* key : {"device", "placement", "freq_ghz", "time_s", "energy_j"})
    if (!f.count(key)) fail(where, std::string("missing '") + key + "'");
  Run r;
  r.where = where;
  try {
    r.device = parse_device(f["device"]);
    r.placement = card_affinity::parse_affinity(f["placement"]);
  } catch (const std::invalid_argument& e) {
    fail(where, e.what());
  }
  r.threads = thread_count(f, where);
  r.freq_ghz = positive(where, "freq_ghz", f["freq_ghz"]);
  r.time_s = positive(where, "time_s", f["time_s"]);
  r.energy_j = positive(where, "energy_j", f["energy_j"]);
  if (f.count("instructions")) r.instructions = positive(where, "instructions", f["instructions"]);
  if (f.count("cycles")) r.cycles = positive(where, "cycles", f["cycles"]);
  if (f.count("mem_stall_frac")) {
    r.mem_stall_frac = number(where, "mem_stall_frac", f["mem_stall_frac"]);
    if (*r.mem_stall_frac < 0 || *r.mem_stall_frac >= 1)
      fail(where, "field 'mem_stall_frac': must be in [0, 1)");
  }
  return r;
}

std::vector<Run> read_runs(const std::string& path) {
  const bool json = path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
  return json ? read_runs_json(path) : read_runs_csv(path);
}

}  // namespace joule::advisor
