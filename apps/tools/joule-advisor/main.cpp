// joule-advisor: fits Ramapantulu's energy-time model to baseline runs and
// recommends configurations (threads, placement, frequency, host or card);
// `validate` checks its predictions on held-out measured runs; `count`
// sizes mixed-node configuration spaces. See docs/advisor.md.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "advise.hpp"
#include "configs.hpp"
#include "validate.hpp"

namespace {

using namespace joule::advisor;

// A finite number > 0: CLI::PositiveNumber lets "nan" through (nan <= 0 is
// false) and takes "inf".
const CLI::Validator kFinitePositive(
    [](std::string& v) -> std::string {
      double x = 0;
      if (!CLI::detail::lexical_cast(v, x) || !std::isfinite(x) || x <= 0)
        return "expected a finite number > 0, got '" + v + "'";
      return {};
    },
    "NUMBER > 0");

// Checked again by fit_options, which names the allowed values.
void add_contention(CLI::App& cmd, AdviseArgs& a) {
  cmd.add_option("--contention", a.contention,
                 "how within-core contention combines with memory queueing: overlap (max, "
                 "SMT hides stalls), serial (time-sliced threads, stalls add up) or auto (the "
                 "lower training error)")
      ->capture_default_str();
}

void add_advise(CLI::App& app, AdviseArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "advise", "fit the model to baseline runs, print the Pareto front and a recommendation");
  cmd->add_option("runs", a.run_files, "baseline runs, CSV or .json")->required();
  cmd->add_option("--card-topology", a.card_topology, "hwloc synthetic topology of the card");
  cmd->add_option("--host-topology", a.host_topology, "hwloc synthetic topology of the host");
  cmd->add_option("--card-freqs", a.card_freqs, "card frequencies in GHz (default: the runs')")
      ->delimiter(',')
      ->check(kFinitePositive);
  cmd->add_option("--host-freqs", a.host_freqs, "host frequencies in GHz (default: the runs')")
      ->delimiter(',')
      ->check(kFinitePositive);
  auto* d = cmd->add_option("--deadline", a.deadline_s, "least energy within this time (s)")
                ->check(kFinitePositive);
  cmd->add_option("--energy-budget", a.budget_j, "least time within this energy (J)")
      ->excludes(d)
      ->check(kFinitePositive);
  cmd->add_option("--device", a.device, "only this device's configurations (host or card)")
      ->check(CLI::IsMember({"host", "card"}));
  cmd->add_option("--csv", a.csv_out, "write every configuration with its prediction here");
  cmd->add_option("--svg", a.svg_out, "write the time-energy plot here");
  add_contention(*cmd, a);
  cmd->callback([&a] { a.run = true; });
}

void add_validate(CLI::App& app, ValidateArgs& v) {
  CLI::App* cmd = app.add_subcommand(
      "validate", "fit on a training subset of measured runs and predict the others");
  AdviseArgs& a = v.common;
  cmd->add_option("runs", a.run_files, "measured runs, CSV or .json")->required();
  cmd->add_option("--train", v.train,
                  "training runs: plan (Ramapantulu's plan: compact on one core, scatter one "
                  "thread per core, compact on every PU) or PLACEMENT:T,T,... items")
      ->capture_default_str();
  cmd->add_option("--card-topology", a.card_topology, "hwloc synthetic topology of the card");
  cmd->add_option("--host-topology", a.host_topology, "hwloc synthetic topology of the host");
  cmd->add_option("--device", a.device, "only this device's runs (host or card)")
      ->check(CLI::IsMember({"host", "card"}));
  cmd->add_option("--max-error", v.max_error_pct,
                  "exit with status 3 when a mean held-out error exceeds this (percent)")
      ->check(kFinitePositive);
  cmd->add_option("--train-freqs", v.train_freqs,
                  "train only on runs at these frequencies (GHz); the others are held out")
      ->delimiter(',')
      ->check(kFinitePositive);
  add_contention(*cmd, a);
  cmd->callback([&v] { v.run = true; });
}

void add_count(CLI::App& app, std::vector<long long>& sizes, bool& run) {
  CLI::App* cmd = app.add_subcommand(
      "count", "mixed configurations of node types with N1, N2, ... configurations each");
  cmd->add_option("sizes", sizes, "configurations per node type")->required();
  cmd->callback([&run] { run = true; });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Energy-time configuration advisor (Ramapantulu's energy-time model).",
               "joule-advisor");
  app.require_subcommand(1);
  AdviseArgs advise_args;
  std::vector<long long> sizes;
  bool count_run = false;
  add_advise(app, advise_args);
  ValidateArgs validate_args;
  add_validate(app, validate_args);
  add_count(app, sizes, count_run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    if (count_run) {
      std::printf("%llu\n", static_cast<unsigned long long>(count_mixed(sizes)));
      return 0;
    }
    if (validate_args.run) return run_validate(validate_args);
    return run_advise(advise_args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "joule-advisor: %s\n", e.what());
    return 1;
  }
}
