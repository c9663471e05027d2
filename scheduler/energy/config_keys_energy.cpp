// Keys of the energy policies (Config::energy). Each row validates its value
// with a range or a list; the names of JOULE_ENERGY_POLICY come from the
// registry, so a new policy needs no change here.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "energy_config.hpp"
#include "text.hpp"

namespace joule::energy {
namespace {

using core::Config;
using core::ConfigKey;

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// `v` if it is one of `allowed`, else std::invalid_argument.
std::string one_of(std::string_view v, std::initializer_list<const char*> allowed) {
  for (const char* a : allowed)
    if (v == a) return a;
  throw std::invalid_argument("unknown value");
}

double parse_number(std::string_view v, double lo, double hi) {
  v = core::trim(v);
  double x = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || ec != std::errc() || p != v.data() + v.size() || !std::isfinite(x))
    throw std::invalid_argument("not a number");
  if (x < lo || x > hi) throw std::invalid_argument("out of range");
  return x;
}

std::string fmt(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

void set_policy(Config& c, std::string_view v) {
  for (const auto& n : energy_policy_names()) {
    if (n == v) {
      c.energy.policy = n;
      return;
    }
  }
  throw std::invalid_argument("unknown energy policy");
}

void set_threshold(Config& c, std::string_view v) {
  const double x = parse_number(v, 0, 1000);
  if (x != 0 && x < 1) throw std::invalid_argument("a ratio below 1 would balance at every call");
  c.energy.threshold = x;
}

std::vector<ConfigKey> choice_keys() {
  return {
      {"JOULE_ENERGY_POLICY", [] { return join(energy_policy_names()); },
       "energy policy (auto: fg-energylb for iterations with affinity keys, else queue-depth)",
       set_policy, [](const Config& c) { return c.energy.policy; }},
      {"JOULE_ENERGY_QUANTISE", [] { return std::string("ceil, round"); },
       "target frequency to a P-state: ceil (never slower than planned) or round (nearest)",
       [](Config& c, std::string_view v) {
         c.energy.quantise = one_of(v, {"ceil", "round"});
       },
       [](const Config& c) { return c.energy.quantise; }},
      {"JOULE_ENERGY_LOAD_NORM", [] { return std::string("work, as-written"); },
       "load normalisation: work (load x f/fmax) or as-written (load / f, unstable)",
       [](Config& c, std::string_view v) {
         c.energy.load_norm = one_of(v, {"work", "as-written"});
       },
       [](const Config& c) { return c.energy.load_norm; }},
      {"JOULE_ENERGY_BALANCER",
       [] { return std::string("none, greedy, refine, randcent, partition"); },
       "affinity-key remapping when the load ratio reaches the threshold",
       [](Config& c, std::string_view v) {
         c.energy.balancer = one_of(v, {"none", "greedy", "refine", "randcent", "partition"});
       },
       [](const Config& c) { return c.energy.balancer; }},
      {"JOULE_ENERGY_ON_BALANCE", [] { return std::string("either, reset-max, lb-then-dvfs"); },
       "frequencies at a balancing step: unchanged, all fmax, or set for the new mapping",
       [](Config& c, std::string_view v) {
         c.energy.on_balance = one_of(v, {"either", "reset-max", "lb-then-dvfs"});
       },
       [](const Config& c) { return c.energy.on_balance; }},
      {"JOULE_ENERGY_SPLIT_OBJECTIVE", [] { return std::string("energy, time, edp"); },
       "what the work splitter minimises",
       [](Config& c, std::string_view v) {
         c.energy.splitter_objective = one_of(v, {"energy", "time", "edp"});
       },
       [](const Config& c) { return c.energy.splitter_objective; }},
      {"JOULE_ENERGY_MASKS", core::bool_values, "the policy may park or lend cores",
       [](Config& c, std::string_view v) { c.energy.masks = core::parse_bool(v); },
       [](const Config& c) { return core::format_bool(c.energy.masks); }},
  };
}

std::vector<ConfigKey> number_keys() {
  return {
      {"JOULE_ENERGY_THRESHOLD", [] { return std::string("0 (fmax/fmin), 1 .. 1000"); },
       "max/min load ratio at which the balancer runs instead of DVFS", set_threshold,
       [](const Config& c) { return fmt(c.energy.threshold); }},
      {"JOULE_ENERGY_PERIOD", [] { return std::string("1 .. 1000000"); },
       "iterations between decisions",
       [](Config& c, std::string_view v) { c.energy.period = int(core::parse_int(v, 1, 1000000)); },
       [](const Config& c) { return std::to_string(c.energy.period); }},
      {"JOULE_ENERGY_WINDOW_MS", [] { return std::string("1 .. 60000"); },
       "queue-depth's window (ms)",
       [](Config& c, std::string_view v) {
         c.energy.window_ms = int(core::parse_int(v, 1, 60000));
       },
       [](const Config& c) { return std::to_string(c.energy.window_ms); }},
      {"JOULE_ENERGY_TIME_BUDGET", [] { return std::string("0 .. 0.5"); },
       "allowed slowdown, as a fraction",
       [](Config& c, std::string_view v) { c.energy.time_budget = parse_number(v, 0, 0.5); },
       [](const Config& c) { return fmt(c.energy.time_budget); }},
      {"JOULE_ENERGY_T_MAX", [] { return std::string("0 (off) .. 150"); },
       "templb's chip temperature limit (Celsius)",
       [](Config& c, std::string_view v) { c.energy.t_max_c = parse_number(v, 0, 150); },
       [](const Config& c) { return fmt(c.energy.t_max_c); }},
      {"JOULE_ENERGY_TOLERANCE", [] { return std::string("0 .. 1"); },
       "refine balancing: a core above (1 + tolerance) x its share gives keys away",
       [](Config& c, std::string_view v) { c.energy.tolerance = parse_number(v, 0, 1); },
       [](const Config& c) { return fmt(c.energy.tolerance); }},
      {"JOULE_ENERGY_MPI_SLACK_US", [] { return std::string("1 .. 10000000"); },
       "a blocking MPI call this long (us) slows its core until it returns",
       [](Config& c, std::string_view v) {
         c.energy.mpi_slack_us = int(core::parse_int(v, 1, 10000000));
       },
       [](const Config& c) { return std::to_string(c.energy.mpi_slack_us); }},
  };
}

template <typename E>
E pick(const std::string& v, std::initializer_list<std::pair<const char*, E>> table) {
  for (const auto& [name, e] : table)
    if (v == name) return e;
  return table.begin()->second;  // unreachable after validation
}

}  // namespace

// Built at each call, not at static initialisation (as the other sections).
std::vector<ConfigKey> energy_config_keys() {
  auto keys = choice_keys();
  auto numbers = number_keys();
  keys.insert(keys.begin() + 1, numbers.begin(), numbers.end());
  return keys;
}

Options options_from_config(const core::Config& cfg) {
  const auto& e = cfg.energy;
  Options o;
  o.threshold = e.threshold;
  o.quantise = pick<Quantise>(e.quantise, {{"ceil", Quantise::ceil}, {"round", Quantise::round}});
  o.load_norm =
      pick<LoadNorm>(e.load_norm, {{"work", LoadNorm::work}, {"as-written", LoadNorm::as_written}});
  o.balancer = pick<Balancer>(e.balancer, {{"none", Balancer::none},
                                           {"greedy", Balancer::greedy},
                                           {"refine", Balancer::refine},
                                           {"randcent", Balancer::randcent},
                                           {"partition", Balancer::partition}});
  o.on_balance = pick<OnBalance>(e.on_balance, {{"either", OnBalance::either},
                                                {"reset-max", OnBalance::reset_max},
                                                {"lb-then-dvfs", OnBalance::lb_then_dvfs}});
  o.period = e.period;
  o.window_s = e.window_ms * 1e-3;
  o.time_budget = e.time_budget;
  o.t_max_c = e.t_max_c;
  o.tolerance = e.tolerance;
  o.mpi_slack_s = e.mpi_slack_us * 1e-6;
  o.objective = pick<Objective>(
      e.splitter_objective,
      {{"energy", Objective::energy}, {"time", Objective::time}, {"edp", Objective::edp}});
  o.masks = e.masks;
  return o;
}

}  // namespace joule::energy
