// Keys of the energy policies (EnergySettings). Each row validates its value
// with a range or a list; the names of JOULE_ENERGY_POLICY come from the
// registry, so a new policy needs no change here.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "energy_config.hpp"
#include "key_table.hpp"

namespace joule::energy {
namespace {

using core::Choices;
using S = EnergySettings;

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// A choice of the policy's Options.
template <class E>
void option_choice(core::KeyTable<S>& t, const char* name, E Options::*m, Choices<E> names,
                   const char* help) {
  t.custom(
      name, "choice", core::choice_list(names), help,
      [m, names](S& s, std::string_view v) {
        for (const auto& [n, e] : names)
          if (v == n) return void(s.options.*m = e);
        throw std::invalid_argument("unknown value");
      },
      [m, names](const S& s) { return std::string(core::choice_name(names, s.options.*m)); });
}

// A number of the policy's Options, stored as value * scale (ms -> s, ...).
template <class T>
void option_number(core::KeyTable<S>& t, const char* name, T Options::*m, double lo, double hi,
                   double scale, const char* help, const char* note = nullptr) {
  const bool integer = std::is_integral_v<T> || scale != 1.0;
  const std::string range =
      integer ? std::to_string(std::int64_t(lo)) + ".." + std::to_string(std::int64_t(hi))
              : core::format_double(lo) + ".." + core::format_double(hi);
  t.custom(
      name, integer ? "integer" : "number",
      (integer ? "an integer " : "a number ") + range +
          (note ? std::string(" (") + note + ")" : ""),
      help,
      [m, lo, hi, scale, integer](S& s, std::string_view v) {
        const double x = integer ? double(core::parse_int(v, std::int64_t(lo), std::int64_t(hi)))
                                 : core::parse_double(v, lo, hi);
        s.options.*m = T(x * scale);
      },
      [m, scale, integer](const S& s) {
        const double x = double(s.options.*m) / scale;
        return integer ? std::to_string(std::llround(x)) : core::format_double(x);
      });
}

}  // namespace

std::vector<core::ConfigKey> energy_config_keys() {
  core::KeyTable<S> t;
  t.custom(
      "JOULE_ENERGY_POLICY", "choice", join(energy_policy_names()),
      "energy policy (auto: fg-energylb for iterations with affinity keys, else queue-depth)",
      [](S& s, std::string_view v) {
        for (const auto& n : energy_policy_names())
          if (n == v) return void(s.policy = n);
        throw std::invalid_argument("unknown energy policy");
      },
      [](const S& s) { return s.policy; });
  t.custom(
      "JOULE_ENERGY_THRESHOLD", "number", "0 (fmax/fmin), or a number 1..1000",
      "max/min load ratio at which the balancer runs instead of DVFS",
      [](S& s, std::string_view v) {
        const double x = core::parse_double(v, 0, 1000);
        if (x != 0 && x < 1)
          throw std::invalid_argument("a ratio below 1 would balance at every call");
        s.options.threshold = x;
      },
      [](const S& s) { return core::format_double(s.options.threshold); });
  option_number(t, "JOULE_ENERGY_PERIOD", &Options::period, 1, 1000000, 1,
                "iterations between decisions");
  option_number(t, "JOULE_ENERGY_WINDOW_MS", &Options::window_s, 1, 60000, 1e-3,
                "queue-depth's window", "milliseconds");
  option_number(t, "JOULE_ENERGY_TIME_BUDGET", &Options::time_budget, 0, 0.5, 1,
                "allowed slowdown, as a fraction");
  option_number(t, "JOULE_ENERGY_T_MAX", &Options::t_max_c, 0, 150, 1,
                "templb's chip temperature limit (Celsius)", "0: off");
  option_number(t, "JOULE_ENERGY_TOLERANCE", &Options::tolerance, 0, 1, 1,
                "refine balancing: a core above (1 + tolerance) x its share gives keys away");
  option_number(t, "JOULE_ENERGY_MPI_SLACK_US", &Options::mpi_slack_s, 1, 10000000, 1e-6,
                "a blocking MPI call this long slows its core until it returns", "microseconds");
  option_choice(t, "JOULE_ENERGY_QUANTISE", &Options::quantise, Choices<Quantise>(kQuantise),
                "target frequency to a P-state: ceil (never slower than planned) or round "
                "(nearest)");
  option_choice(t, "JOULE_ENERGY_LOAD_NORM", &Options::load_norm, Choices<LoadNorm>(kLoadNorms),
                "load normalisation: work (load x f/fmax) or as-written (load / f, unstable)");
  option_choice(t, "JOULE_ENERGY_BALANCER", &Options::balancer, Choices<Balancer>(kBalancers),
                "affinity-key remapping when the load ratio reaches the threshold");
  option_choice(t, "JOULE_ENERGY_ON_BALANCE", &Options::on_balance, Choices<OnBalance>(kOnBalance),
                "frequencies at a balancing step: unchanged, all fmax, or set for the new mapping");
  option_choice(t, "JOULE_ENERGY_SPLIT_OBJECTIVE", &Options::objective,
                Choices<Objective>(kObjectives), "what the work splitter minimises");
  t.custom(
      "JOULE_ENERGY_MASKS", "boolean", core::bool_values(), "the policy may park or lend cores",
      [](S& s, std::string_view v) { s.options.masks = core::parse_bool(v); },
      [](const S& s) { return core::format_bool(s.options.masks); });
  t.custom(
      "JOULE_ENERGY_GUARD", "boolean", core::bool_values(),
      "the time guard: measure the time the policy costs and step back past the time budget",
      [](S& s, std::string_view v) { s.options.guard = core::parse_bool(v); },
      [](const S& s) { return core::format_bool(s.options.guard); });
  t.custom(
      "JOULE_ENERGY_GUARD_SLACK", "boolean", core::bool_values(),
      "the time guard trusts slowing off a critical path kept at the top: no baseline wait, no "
      "noise margin off the path",
      [](S& s, std::string_view v) { s.options.guard_slack = core::parse_bool(v); },
      [](const S& s) { return core::format_bool(s.options.guard_slack); });
  return t.keys();
}

}  // namespace joule::energy
