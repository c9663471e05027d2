// joule-advisor validate: held-out validation of Ramapantulu's model. Fit on a
// training subset of measured runs — by default the thesis's measurement
// plan, the runs a user would record first — predict every other run of
// that device, and print the per-run and mean errors. That is the test the
// baseline error of `advise` is not: a model can fit its own runs and still
// mispredict the configurations it was not given.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "advise.hpp"
#include "model.hpp"
#include "runs.hpp"

namespace joule::advisor {

// Which runs train the model: the plan, or placement:threads lists.
struct TrainSpec {
  bool plan = true;  // the thesis's §5.2: compact on one core (1..PUs per core
                     // threads), scatter with one thread per core, and the
                     // whole device (compact on every PU): the one mixed
                     // point, where the contention forms differ
  std::vector<std::pair<card_affinity::Affinity, int>> runs;
  std::vector<double> freqs;  // --train-freqs: only runs at these (empty: all)
};
// "plan" or items like "compact:1,2,3,4" and "scatter:1,2". Throws
// InputError naming the item and the allowed forms.
TrainSpec parse_train(const std::vector<std::string>& items);
bool in_training(const TrainSpec& spec, const card_affinity::CardTopology& topo, const Run& r);

struct HeldOut {
  Run run;
  Prediction predicted;
  double time_err = 0, energy_err = 0;  // predicted / measured - 1
};

struct Validation {
  FitReport fit;
  std::vector<HeldOut> held;
  double time_mean = 0, time_max = 0, energy_mean = 0, energy_max = 0;  // |error|
};

// Fits m (from unfitted_model) on the training runs of m.device and
// predicts the rest. Throws InputError when nothing is held out.
Validation validate_device(DeviceModel& m, const std::vector<Run>& runs, const TrainSpec& spec,
                           const FitOptions& opts = {});

struct ValidateArgs {
  bool run = false;
  AdviseArgs common;  // run files, topologies, frequencies, --device
  std::vector<std::string> train = {"plan"};
  std::vector<double> train_freqs;      // empty: runs at every frequency train
  std::optional<double> max_error_pct;  // exit status 3 when a mean error is above
};

// Prints to stdout; returns the exit status.
int run_validate(const ValidateArgs& args);

}  // namespace joule::advisor
