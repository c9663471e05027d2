// The [split], [lb], [network], [room] and [noise] keys (split_engine.cpp,
// network_model.hpp, room_model.hpp, noise_model.hpp), and baseline_of: the
// no-policy run a scenario is compared with.
#include "scenario_keys.hpp"
#include "scenario_values.hpp"
#include "text.hpp"

namespace joule::sim {
namespace {

constexpr double kBig = 1e12;

void set_objective(Scenario& s, const std::string& v) {
  const auto c = parse_choice(v, {"energy", "time", "edp"});
  s.split.objective = c == "time"  ? energy::Objective::time
                      : c == "edp" ? energy::Objective::edp
                                   : energy::Objective::energy;
}

// Cabrera et al.'s splitter (workload.kind = split) and the cost of balancing.
std::vector<Key> split_lb_keys() {
  return {
      {"split.rates", "work units per second > 0, one per device",
       [](Scenario& s, const std::string& v) { s.split.rates = parse_numbers(v, 1e-9, kBig); }},
      {"split.busy_w", "watts >= 0, one per device",
       [](Scenario& s, const std::string& v) { s.split.busy_w = parse_numbers(v, 0, kBig); }},
      {"split.idle_w", "watts >= 0, one per device",
       [](Scenario& s, const std::string& v) { s.split.idle_w = parse_numbers(v, 0, kBig); }},
      {"split.method", "even | proportional | splitter",
       [](Scenario& s, const std::string& v) {
         s.split.method = parse_choice(v, {"even", "proportional", "splitter"});
       }},
      {"split.objective", "energy | time | edp", set_objective},
      {"split.work", "work units per iteration > 0",
       [](Scenario& s, const std::string& v) { s.split.work = parse_number(v, 1e-12, kBig); }},
      {"split.rates_end",
       "units per second > 0, one per device (linear drift to the last iteration)",
       [](Scenario& s, const std::string& v) { s.split.rates_end = parse_numbers(v, 1e-9, kBig); }},
      {"split.p0", "probability 0..1 (splitter restart after convergence; 0: never)",
       [](Scenario& s, const std::string& v) { s.split.p0 = parse_number(v, 0, 1); }},
      {"split.p_step", "probability 0..1 (added to p per converged iteration)",
       [](Scenario& s, const std::string& v) { s.split.p_step = parse_number(v, 0, 1); }},
      {"split.lb_s", "seconds per iteration >= 0 (dynamic methods)",
       [](Scenario& s, const std::string& v) { s.split.lb_s = parse_number(v, 0, kBig); }},
      // lb cost
      {"lb.decision_s", "seconds per policy call >= 0",
       [](Scenario& s, const std::string& v) { s.lb.decision_s = parse_number(v, 0, kBig); }},
      {"lb.balance_s", "seconds per balancing call >= 0",
       [](Scenario& s, const std::string& v) { s.lb.balance_s = parse_number(v, 0, kBig); }},
      {"lb.bandwidth_gbs", "GB/s > 0",
       [](Scenario& s, const std::string& v) { s.lb.bandwidth_gbs = parse_number(v, 1e-9, kBig); }},
      {"lb.per_migration_s", "seconds >= 0",
       [](Scenario& s, const std::string& v) { s.lb.per_migration_s = parse_number(v, 0, kBig); }},
  };
}

std::vector<Key> network_keys() {
  return {
      {"network.graph", "none | ring | ring_random (object graph; one message per link per step)",
       [](Scenario& s, const std::string& v) {
         s.network.graph = parse_choice(v, {"none", "ring", "ring_random"});
       }},
      {"network.degree", "integer 1..1000 (ring: links to the next k objects)",
       [](Scenario& s, const std::string& v) { s.network.degree = parse_int(v, 1, 1000); }},
      {"network.random_pairs", "fraction 0..1 of all object pairs (ring_random)",
       [](Scenario& s, const std::string& v) { s.network.random_pairs = parse_number(v, 0, 1); }},
      {"network.msg_kb", "kB per message >= 0",
       [](Scenario& s, const std::string& v) { s.network.msg_kb = parse_number(v, 0, kBig); }},
      {"network.latency_us", "microseconds per message that leaves its core >= 0",
       [](Scenario& s, const std::string& v) { s.network.latency_us = parse_number(v, 0, 1e9); }},
      {"network.core_gbs", "GB/s > 0 (between cores of a chip)",
       [](Scenario& s, const std::string& v) { s.network.core_gbs = parse_number(v, 1e-9, kBig); }},
      {"network.chip_gbs", "GB/s > 0 (between chips of a node)",
       [](Scenario& s, const std::string& v) { s.network.chip_gbs = parse_number(v, 1e-9, kBig); }},
      {"network.node_gbs", "GB/s > 0 (between nodes)",
       [](Scenario& s, const std::string& v) { s.network.node_gbs = parse_number(v, 1e-9, kBig); }},
      {"network.chips_per_node", "integer 1..4096",
       [](Scenario& s, const std::string& v) { s.network.chips_per_node = parse_int(v, 1, 4096); }},
  };
}

std::vector<Key> room_keys() {
  return {
      {"room.setpoint_c", "degrees C 1..60 (CRAC exhaust set point), 0 = no room model",
       [](Scenario& s, const std::string& v) {
         s.room.setpoint_c = parse_number(v, 0, 60);
         if (s.room.setpoint_c > 0 && s.room.setpoint_c < 1) throw ValueError("0 or 1..60");
       }},
      {"room.airflow_w_per_k", "W/K > 0 (c_air x air flow)",
       [](Scenario& s, const std::string& v) {
         s.room.airflow_w_per_k = parse_number(v, 1e-3, kBig);
       }},
      {"room.envelope_w_per_k", "W/K >= 0 (heat leaking in from the building per K)",
       [](Scenario& s, const std::string& v) {
         s.room.envelope_w_per_k = parse_number(v, 0, kBig);
       }},
      {"room.building_c", "degrees C -50..60",
       [](Scenario& s, const std::string& v) { s.room.building_c = parse_number(v, -50, 60); }},
      {"room.base_setpoint_c", "degrees C 1..60 (the baseline's set point), 0 = setpoint_c",
       [](Scenario& s, const std::string& v) {
         s.room.base_setpoint_c = parse_number(v, 0, 60);
         if (s.room.base_setpoint_c > 0 && s.room.base_setpoint_c < 1)
           throw ValueError("0 or 1..60");
       }},
  };
}

void set_distribution(Scenario& s, const std::string& v) {
  using D = NoiseSpec::Distribution;
  const auto c = parse_choice(v, {"none", "bursts", "exponential", "uniform"});
  s.noise.distribution = c == "bursts"        ? D::bursts
                         : c == "exponential" ? D::exponential
                         : c == "uniform"     ? D::uniform
                                              : D::none;
}

void set_noise_cores(Scenario& s, const std::string& v) {
  s.noise.cores.clear();
  if (v.empty()) return;
  for (double c : parse_numbers(v, 0, 1e7)) {
    if (c != double(int(c)))
      throw ValueError("'" + core::escape_text(v) + "' is not a list of core numbers");
    s.noise.cores.push_back(int(c));
  }
}

std::vector<Key> noise_keys() {
  return {
      {"noise.distribution",
       "none | bursts | exponential | uniform (random delays a core loses to other processes)",
       set_distribution},
      {"noise.p", "probability 0..1 of a delay per core per step (dag: per task)",
       [](Scenario& s, const std::string& v) { s.noise.p = parse_number(v, 0, 1); }},
      {"noise.delay_us", "microseconds > 0 (bursts: every delay)",
       [](Scenario& s, const std::string& v) { s.noise.delay_us = parse_number(v, 1e-6, 1e9); }},
      {"noise.mean_us", "microseconds > 0 (exponential: the mean delay)",
       [](Scenario& s, const std::string& v) { s.noise.mean_us = parse_number(v, 1e-6, 1e9); }},
      {"noise.max_us", "microseconds > 0 (uniform: delays over 0..max_us)",
       [](Scenario& s, const std::string& v) { s.noise.max_us = parse_number(v, 1e-6, 1e9); }},
      {"noise.cores", "core list, e.g. 1 or 0,3 (the noisy cores; empty: every core)",
       set_noise_cores},
      {"noise.seed", "integer >= 0",
       [](Scenario& s, const std::string& v) {
         s.noise.seed = std::uint64_t(parse_number(v, 0, 9e15));
       }},
  };
}

// The parameter the chosen distribution needs must be set, and the noisy
// cores must exist.
void check_noise(const Scenario& s) {
  using D = NoiseSpec::Distribution;
  const auto& n = s.noise;
  if (n.distribution == D::bursts && n.delay_us <= 0)
    throw ConfigError("noise.delay_us: distribution = bursts needs noise.delay_us > 0");
  if (n.distribution == D::exponential && n.mean_us <= 0)
    throw ConfigError("noise.mean_us: distribution = exponential needs noise.mean_us > 0");
  if (n.distribution == D::uniform && n.max_us <= 0)
    throw ConfigError("noise.max_us: distribution = uniform needs noise.max_us > 0");
  for (int c : n.cores)
    if (c >= s.platform.pes())
      throw ConfigError("noise.cores: core " + std::to_string(c) + " does not exist (" +
                        std::to_string(s.platform.pes()) + " cores)");
  const auto& k = s.workload.kind;
  if (n.active() && (k == "split" || s.lending.active()))
    throw ConfigError("noise.distribution: noise runs with the step and dag engines only");
}

}  // namespace

const std::vector<Key>& model_keys() {
  static const std::vector<Key> table = [] {
    auto t = split_lb_keys();
    for (auto& k : network_keys()) t.push_back(std::move(k));
    for (auto& k : room_keys()) t.push_back(std::move(k));
    for (auto& k : noise_keys()) t.push_back(std::move(k));
    return t;
  }();
  return table;
}

void check_models(const Scenario& s) {
  const auto& k = s.workload.kind;
  if (s.network.graph != "none" && (k == "dag" || k == "split" || s.lending.active()))
    throw ConfigError("network.graph: the network model runs with the step engine only (" +
                      std::string("workload.kind is ") + k +
                      (s.lending.active() ? ", lending on)" : ")"));
  if (s.room.active() && (k == "dag" || k == "split" || s.lending.active()))
    throw ConfigError("room.setpoint_c: the room model runs with the step engine only");
  if (!s.split.rates_end.empty() && s.split.rates_end.size() != s.split.rates.size())
    throw ConfigError("split.rates_end: needs one value per device of split.rates (" +
                      std::to_string(s.split.rates.size()) + ")");
  if (s.room.base_setpoint_c > 0 && !s.room.active())
    throw ConfigError("room.base_setpoint_c: needs room.setpoint_c > 0");
  check_noise(s);
}

Scenario baseline_of(const Scenario& s) {
  Scenario b = s;
  b.policy.name = "none";
  if (s.room.base_setpoint_c > 0) b.room.setpoint_c = s.room.base_setpoint_c;
  return b;
}

}  // namespace joule::sim
