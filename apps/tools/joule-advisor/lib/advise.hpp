// joule-advisor advise: read runs, fit each device that has runs, enumerate
// and predict every configuration, print the front and the recommendation.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fit.hpp"
#include "model.hpp"
#include "runs.hpp"

namespace joule::advisor {

struct AdviseArgs {
  bool run = false;
  std::vector<std::string> run_files;
  std::string card_topology = "package:1 core:60 pu:4";
  std::string host_topology = "package:2 core:8 pu:2";
  std::vector<double> card_freqs, host_freqs;
  std::optional<double> deadline_s, budget_j;
  std::string device;  // "" (every device with runs), "host" or "card"
  std::string csv_out, svg_out;
  std::string contention = "auto";  // overlap, serial or auto (model.hpp)
};

// Prints to stdout; throws on bad input (the message names file:line).
int run_advise(const AdviseArgs& args);

// Shared with `validate` (validate.hpp): every run of the files; a device's
// model before fitting (its topology from the args, its frequencies from
// the args or else the runs, every run checked against its PUs); and the
// fit's summary lines.
std::vector<Run> read_all_runs(const std::vector<std::string>& files);
DeviceModel unfitted_model(const AdviseArgs& args, Device d, const std::vector<Run>& runs);
void print_fit(const DeviceModel& m, const FitReport& r);
// --contention: overlap, serial or auto (nullopt); throws InputError naming
// the option and the allowed values otherwise.
FitOptions fit_options(const AdviseArgs& args);

}  // namespace joule::advisor
