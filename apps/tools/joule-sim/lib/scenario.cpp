// The key table: every scenario key, what it accepts and where it goes.
// One row per key keeps the docs (describe_keys), the errors and the
// parsing in one place.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>

#include "scenario.hpp"
#include "scenario_keys.hpp"
#include "scenario_values.hpp"
#include "text.hpp"

namespace joule::sim {
namespace {

constexpr double kBig = 1e12;

energy::Quantise quantise_of(const std::string& v) {
  return parse_choice(v, {"round", "ceil"}) == "round" ? energy::Quantise::round
                                                       : energy::Quantise::ceil;
}

energy::Balancer balancer_of(const std::string& v) {
  const auto c = parse_choice(v, {"none", "greedy", "refine", "randcent", "partition"});
  return c == "greedy"      ? energy::Balancer::greedy
         : c == "refine"    ? energy::Balancer::refine
         : c == "randcent"  ? energy::Balancer::randcent
         : c == "partition" ? energy::Balancer::partition
                            : energy::Balancer::none;
}

energy::OnBalance on_balance_of(const std::string& v) {
  const auto c = parse_choice(v, {"either", "reset_max", "lb_then_dvfs"});
  return c == "reset_max"      ? energy::OnBalance::reset_max
         : c == "lb_then_dvfs" ? energy::OnBalance::lb_then_dvfs
                               : energy::OnBalance::either;
}

void set_wait(Scenario& s, const std::string& v) {
  s.platform.wait_busy = v == "busy";
  if (!s.platform.wait_busy) s.platform.wait_power_w = parse_number(v, 0, kBig);
}

void set_idle(Scenario& s, const std::string& v) {
  s.platform.idle_power_w = v == "wait" ? -1 : parse_number(v, 0, kBig);
}

std::vector<std::string> policy_names() {
  auto names = energy::energy_policy_names();
  std::erase(names, "auto");  // the simulator names the policy it runs
  return names;
}

const std::vector<Key>& keys() {
  static const std::vector<Key> table = {
      // platform
      {"platform.chips", "integer 1..4096",
       [](Scenario& s, const std::string& v) { s.platform.chips = parse_int(v, 1, 4096); }},
      {"platform.cores_per_chip", "integer 1..1024",
       [](Scenario& s, const std::string& v) { s.platform.cores_per_chip = parse_int(v, 1, 1024); }},
      {"platform.pstates_ghz", "GHz list 1.2,1.8,2.4 or range 1.2-2.4:0.1",
       [](Scenario& s, const std::string& v) { s.platform.pstates_ghz = parse_pstates(v); }},
      {"platform.power", "linear:a,b | cubic:Ps,k | table:w1,w2,... (one busy core, W)",
       [](Scenario& s, const std::string& v) { s.platform.power = parse_power(v); }},
      {"platform.wait_power", "busy | watts", set_wait},
      {"platform.idle_power", "wait | watts (a core while the program is paused for LB)",
       set_idle},
      {"platform.uncore_w", "watts per chip >= 0",
       [](Scenario& s, const std::string& v) { s.platform.uncore_w = parse_number(v, 0, kBig); }},
      {"platform.dvfs", "core | chip",
       [](Scenario& s, const std::string& v) {
         s.platform.per_chip_dvfs = parse_choice(v, {"core", "chip"}) == "chip";
       }},
      {"platform.dvfs_latency_us", "microseconds >= 0",
       [](Scenario& s, const std::string& v) {
         s.platform.dvfs_latency_us = parse_number(v, 0, 1e9);
       }},
      {"platform.air_c", "degrees C",
       [](Scenario& s, const std::string& v) { s.platform.air_c = parse_number(v, -50, 100); }},
      {"platform.tmax_c", "degrees C (templb's T_max; 0 = off)",
       [](Scenario& s, const std::string& v) { s.platform.tmax_c = parse_number(v, 0, 200); }},
      {"platform.thermal_alpha", "number",
       [](Scenario& s, const std::string& v) {
         s.platform.thermal_alpha = parse_number(v, 0, 10);
       }},
      {"platform.thermal_beta", "K per watt >= 0",
       [](Scenario& s, const std::string& v) { s.platform.thermal_beta = parse_number(v, 0, 100); }},
      {"platform.thermal_gamma", "K offset",
       [](Scenario& s, const std::string& v) {
         s.platform.thermal_gamma = parse_number(v, -200, 200);
       }},
      {"platform.thermal_tau_s", "seconds > 0",
       [](Scenario& s, const std::string& v) {
         s.platform.thermal_tau_s = parse_number(v, 1e-6, kBig);
       }},
      {"platform.hotspot_c", "K list, one per chip (cycled)",
       [](Scenario& s, const std::string& v) {
         s.platform.hotspot_c = parse_numbers(v, -100, 100);
       }},
      // workload
      {"workload.kind", "static | lb_test | stencil | dynamic | btmz | pils | dag | split",
       [](Scenario& s, const std::string& v) {
         s.workload.kind = parse_choice(
             v, {"static", "lb_test", "stencil", "dynamic", "btmz", "pils", "dag", "split"});
       }},
      {"workload.loads", "seconds list >= 0 (static: per PE or object; pils: split)",
       [](Scenario& s, const std::string& v) { s.workload.loads = parse_numbers(v, 0, kBig); }},
      {"workload.objects", "integer 0..1000000 (0: the kind's default)",
       [](Scenario& s, const std::string& v) { s.workload.objects = parse_int(v, 0, 1000000); }},
      {"workload.steps", "integer 1..10000000",
       [](Scenario& s, const std::string& v) { s.workload.steps = parse_int(v, 1, 10000000); }},
      {"workload.seed", "integer >= 0",
       [](Scenario& s, const std::string& v) {
         s.workload.seed = std::uint64_t(parse_number(v, 0, 9e15));
       }},
      {"workload.min_s", "seconds >= 0",
       [](Scenario& s, const std::string& v) { s.workload.min_s = parse_number(v, 0, kBig); }},
      {"workload.max_s", "seconds >= 0",
       [](Scenario& s, const std::string& v) { s.workload.max_s = parse_number(v, 0, kBig); }},
      {"workload.imbalance", "max/min PE scale >= 1",
       [](Scenario& s, const std::string& v) { s.workload.imbalance = parse_number(v, 1, 1e6); }},
      {"workload.drift", "relative random walk per step, 0..1",
       [](Scenario& s, const std::string& v) { s.workload.drift = parse_number(v, 0, 1); }},
      {"workload.noise", "relative, 0..1",
       [](Scenario& s, const std::string& v) { s.workload.noise = parse_number(v, 0, 1); }},
      {"workload.comm_s", "seconds per step >= 0",
       [](Scenario& s, const std::string& v) { s.workload.comm_s = parse_number(v, 0, kBig); }},
      {"workload.mem_bound", "fraction 0..1",
       [](Scenario& s, const std::string& v) { s.workload.mem_bound = parse_number(v, 0, 1); }},
      {"workload.object_mb", "MB >= 0",
       [](Scenario& s, const std::string& v) { s.workload.object_mb = parse_number(v, 0, kBig); }},
      {"workload.shape", "ondes3d | ondes3d-cg | lulesh | points",
       [](Scenario& s, const std::string& v) {
         s.workload.shape = parse_choice(v, {"ondes3d", "ondes3d-cg", "lulesh", "points"});
       }},
      {"workload.profile", "frac,ratio,frac,ratio,... (shape = points)",
       [](Scenario& s, const std::string& v) { s.workload.profile = parse_numbers(v, 0, 1e6); }},
      {"workload.per_chip", "true | false",
       [](Scenario& s, const std::string& v) { s.workload.per_chip = parse_bool(v); }},
      {"workload.zones", "NxM",
       [](Scenario& s, const std::string& v) { s.workload.zones = v; }},
      {"workload.zone_ratio", "largest/smallest zone >= 1",
       [](Scenario& s, const std::string& v) { s.workload.zone_ratio = parse_number(v, 1, 1e6); }},
      {"workload.zone_map", "block | binpack",
       [](Scenario& s, const std::string& v) {
         s.workload.zone_map = parse_choice(v, {"block", "binpack"});
       }},
      {"workload.total_s", "seconds > 0",
       [](Scenario& s, const std::string& v) { s.workload.total_s = parse_number(v, 1e-9, kBig); }},
      {"workload.grain", "0 < grain <= 1",
       [](Scenario& s, const std::string& v) { s.workload.grain = parse_number(v, 1e-3, 1); }},
      {"workload.chain", "integer 0..10000000",
       [](Scenario& s, const std::string& v) { s.workload.chain = parse_int(v, 0, 10000000); }},
      {"workload.independents", "integer 0..10000000",
       [](Scenario& s, const std::string& v) {
         s.workload.independents = parse_int(v, 0, 10000000);
       }},
      {"workload.task_s", "seconds > 0",
       [](Scenario& s, const std::string& v) { s.workload.task_s = parse_number(v, 1e-9, kBig); }},
      {"workload.side", "fraction 0..100 of task_s (dag: a side task per chain task; 0 = none)",
       [](Scenario& s, const std::string& v) { s.workload.side = parse_number(v, 0, 100); }},
      {"workload.task_us", "microseconds > 0 (lending: task granularity)",
       [](Scenario& s, const std::string& v) { s.workload.task_us = parse_number(v, 1e-3, kBig); }},
      // lending (the DLB thesis's LeWI; lend_engine.cpp)
      {"lending.mode", "off | lewi",
       [](Scenario& s, const std::string& v) {
         s.lending.lewi = parse_choice(v, {"off", "lewi"}) == "lewi";
       }},
      {"lending.policy", "auto | mpi (auto: LeWI + mask + auto; mpi: LeWI mask)",
       [](Scenario& s, const std::string& v) {
         s.lending.auto_lend = parse_choice(v, {"auto", "mpi"}) == "auto";
       }},
      {"lending.ranks", "integer 0..4096 (0: one per core)",
       [](Scenario& s, const std::string& v) { s.lending.ranks = parse_int(v, 0, 4096); }},
      {"lending.borrow_latency_us", "microseconds >= 0",
       [](Scenario& s, const std::string& v) {
         s.lending.borrow_latency_us = parse_number(v, 0, 1e9);
       }},
      // policy
      {"policy.name", "none | fg-energylb | cg-energylb | queue-depth | templb | mpi-slack",
       [](Scenario& s, const std::string& v) { s.policy.name = parse_choice(v, policy_names()); }},
      {"policy.threshold", "max/min ratio >= 0 (0: fmax/fmin)",
       [](Scenario& s, const std::string& v) { s.policy.opt.threshold = parse_number(v, 0, 1e9); }},
      {"policy.quantise", "round | ceil",
       [](Scenario& s, const std::string& v) { s.policy.opt.quantise = quantise_of(v); }},
      {"policy.load", "work | as_written",
       [](Scenario& s, const std::string& v) {
         s.policy.opt.load_norm = parse_choice(v, {"work", "as_written"}) == "work"
                                      ? energy::LoadNorm::work
                                      : energy::LoadNorm::as_written;
       }},
      {"policy.period", "steps between decisions, integer 1..100000000",
       [](Scenario& s, const std::string& v) { s.policy.opt.period = parse_int(v, 1, 100000000); }},
      {"policy.lb", "none | greedy | refine | randcent | partition",
       [](Scenario& s, const std::string& v) { s.policy.opt.balancer = balancer_of(v); }},
      {"policy.on_lb", "either | reset_max | lb_then_dvfs",
       [](Scenario& s, const std::string& v) { s.policy.opt.on_balance = on_balance_of(v); }},
      {"policy.tolerance", "refine tolerance 0..1",
       [](Scenario& s, const std::string& v) { s.policy.opt.tolerance = parse_number(v, 0, 1); }},
      {"policy.window_s", "queue-depth window, seconds > 0",
       [](Scenario& s, const std::string& v) {
         s.policy.opt.window_s = parse_number(v, 1e-9, kBig);
       }},
      {"policy.time_budget", "allowed slowdown, fraction 0..1",
       [](Scenario& s, const std::string& v) { s.policy.opt.time_budget = parse_number(v, 0, 1); }},
      {"policy.guard", "true | false (the time guard filters the policy's levels)",
       [](Scenario& s, const std::string& v) { s.policy.opt.guard = parse_bool(v); }},
      {"policy.guard_slack",
       "true | false (the guard trusts slowing off a critical path kept at the top)",
       [](Scenario& s, const std::string& v) { s.policy.opt.guard_slack = parse_bool(v); }},
  };
  return table;
}

// Every row: this file's, then the network and room rows.
std::vector<const Key*> all_keys() {
  std::vector<const Key*> out;
  for (const auto& k : keys()) out.push_back(&k);
  for (const auto& k : model_keys()) out.push_back(&k);
  return out;
}

std::string key_list() {
  std::string out;
  for (const Key* k : all_keys()) out += (out.empty() ? "" : ", ") + std::string(k->name);
  return out;
}

// The lending engine runs ranks of static, pils or btmz work at fixed P-states.
void check_lending(const Scenario& s) {
  const auto& k = s.workload.kind;
  if (k != "static" && k != "pils" && k != "btmz")
    throw ConfigError("lending: workload.kind must be static, pils or btmz (is " +
                      core::escape_text(k) + ")");
  if (s.policy.name != "none")
    throw ConfigError(
        "lending: the energy policies are not run with lending; set policy.name=none");
  const int cores = s.platform.pes(), ranks = s.lending.ranks > 0 ? s.lending.ranks : cores;
  if (ranks > cores || cores % ranks != 0)
    throw ConfigError("lending.ranks: " + std::to_string(ranks) + " ranks do not divide " +
                      std::to_string(cores) + " cores evenly");
}

// Bounds on the size of what is simulated, each key alone being in range:
// the machine, the object graph's links (each a few dozen bytes) and the
// object-steps of the run, so that no scenario takes gigabytes or hours.
constexpr std::int64_t kMaxPes = 65536;
constexpr double kMaxLinks = 2e6;
constexpr double kMaxObjectSteps = 2e9;

void check_size(const Scenario& s) {
  const std::int64_t pes = std::int64_t(s.platform.chips) * s.platform.cores_per_chip;
  if (pes > kMaxPes)
    throw ConfigError("platform.chips x platform.cores_per_chip = " + std::to_string(pes) +
                      " cores; allowed: at most " + std::to_string(kMaxPes));
  // 0 objects: the kind's default, at most 16 per PE.
  const double objects = s.workload.objects > 0 ? s.workload.objects : 16.0 * double(pes);
  double links = s.network.graph == "none" ? 0 : objects * s.network.degree;
  if (s.network.graph == "ring_random") links += s.network.random_pairs * objects * objects / 2;
  if (links > kMaxLinks)
    throw ConfigError(
        "workload.objects x network.degree (+ network.random_pairs x objects^2 / "
        "2) = " +
        core::format_number("%.0f", links) + " links; allowed: at most " +
        core::format_number("%.0f", kMaxLinks));
  const double work = double(s.workload.steps) * std::max(objects, double(pes));
  if (work > kMaxObjectSteps)
    throw ConfigError(
        "workload.steps x max(workload.objects, cores) = " + core::format_number("%.0f", work) +
        "; allowed: at most " + core::format_number("%.0f", kMaxObjectSteps));
}

// Checks across keys, after every setting is in.
void check_whole(const Scenario& s) {
  check_size(s);
  const auto n = s.platform.pstates_ghz.size();
  if (s.platform.power.kind == PowerModel::Kind::table && s.platform.power.table.size() != n)
    throw ConfigError("platform.power: table has " + std::to_string(s.platform.power.table.size()) +
                      " entries, platform.pstates_ghz has " + std::to_string(n));
  if (s.workload.max_s < s.workload.min_s)
    throw ConfigError("workload.max_s: must be >= workload.min_s");
  const auto devices = s.split.rates.size();
  if (s.split.busy_w.size() != devices || s.split.idle_w.size() != devices)
    throw ConfigError("split.busy_w, split.idle_w: need one value per device of split.rates (" +
                      std::to_string(devices) + ")");
  if (s.workload.kind == "static" && s.workload.loads.empty())
    throw ConfigError("workload.loads: the static workload needs per-PE or per-object loads");
  if (s.lending.active()) check_lending(s);
  check_models(s);
}

}  // namespace

Scenario make_scenario(const std::vector<Setting>& settings) {
  Scenario s;
  s.platform.pstates_ghz = parse_pstates("1.2-2.4:0.1");
  for (const auto& set : settings) {
    const Key* key = nullptr;
    for (const Key* k : all_keys())
      if (set.key == k->name) key = k;
    if (!key)
      throw ConfigError(set.origin + ": unknown key '" + core::escape_text(set.key) +
                        "'; allowed: " + key_list());
    try {
      key->apply(s, set.value);
    } catch (const ValueError& e) {
      throw ConfigError(set.origin + ": " + core::escape_text(set.key) + ": " + e.what() +
                        " (allowed: " + key->allowed + ")");
    }
  }
  check_whole(s);
  s.policy.opt.t_max_c = s.platform.tmax_c;  // templb reads T_max from its options
  return s;
}

std::string describe_keys() {
  std::string out;
  for (const Key* k : all_keys()) out += std::string(k->name) + "  " + k->allowed + "\n";
  return out;
}

}  // namespace joule::sim
