#include "validate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "report.hpp"

namespace joule::advisor {
namespace {

[[noreturn]] void bad_train(const std::string& item, const std::string& why) {
  throw InputError("--train '" + item + "': " + why +
                   " (allowed: plan, or PLACEMENT:T,T,... with PLACEMENT compact, scatter or "
                   "balanced and T a thread count >= 1)");
}

void parse_item(const std::string& item, TrainSpec& spec) {
  const auto colon = item.find(':');
  if (colon == std::string::npos) bad_train(item, "no ':'");
  card_affinity::Affinity a;
  try {
    a = card_affinity::parse_affinity(item.substr(0, colon));
  } catch (const std::exception&) {
    bad_train(item, "unknown placement '" + item.substr(0, colon) + "'");
  }
  std::string rest = item.substr(colon + 1);
  while (true) {
    const auto comma = rest.find(',');
    const std::string t = rest.substr(0, comma);
    char* end = nullptr;
    const long n = std::strtol(t.c_str(), &end, 10);
    if (t.empty() || *end != '\0' || n < 1 || n > 1 << 20)
      bad_train(item, "'" + t + "' is not a thread count");
    spec.runs.push_back({a, int(n)});
    if (comma == std::string::npos) break;
    rest = rest.substr(comma + 1);
  }
}

HeldOut predict_run(const DeviceModel& m, const Run& r) {
  HeldOut h{r, predict(m, shape_of(m.topology, r.threads, r.placement), r.freq_ghz)};
  h.time_err = h.predicted.time_s / r.time_s - 1;
  h.energy_err = h.predicted.energy_j / r.energy_j - 1;
  return h;
}

void print_validation(const DeviceModel& m, const Validation& v) {
  std::printf("held out: %zu %s runs\n", v.held.size(), device_name(m.device));
  std::printf("%10s %10s %7s %10s %10s %7s  %s\n", "time_s", "predicted", "error", "energy_j",
              "predicted", "error", "configuration");
  for (const HeldOut& h : v.held) {
    Config c{m.device, h.run.placement, shape_of(m.topology, h.run.threads, h.run.placement),
             h.run.freq_ghz, h.predicted};
    std::printf("%10.4g %10.4g %+6.1f%% %10.4g %10.4g %+6.1f%%  %s\n", h.run.time_s,
                h.predicted.time_s, 100 * h.time_err, h.run.energy_j, h.predicted.energy_j,
                100 * h.energy_err, describe(c).c_str());
  }
  std::printf("held-out error: time mean %.1f%% max %.1f%%, energy mean %.1f%% max %.1f%%\n",
              100 * v.time_mean, 100 * v.time_max, 100 * v.energy_mean, 100 * v.energy_max);
}

}  // namespace

TrainSpec parse_train(const std::vector<std::string>& items) {
  TrainSpec spec;
  spec.plan = items.empty() || (items.size() == 1 && items[0] == "plan");
  if (!spec.plan)
    for (const std::string& item : items) parse_item(item, spec);
  return spec;
}

bool in_training(const TrainSpec& spec, const card_affinity::CardTopology& topo, const Run& r) {
  if (!spec.freqs.empty() && std::none_of(spec.freqs.begin(), spec.freqs.end(), [&r](double f) {
        return std::abs(f - r.freq_ghz) < 1e-6;
      }))
    return false;
  if (spec.plan) {
    const int per_core = std::max(1, topo.uniform_pus_per_core());
    return (r.placement == card_affinity::Affinity::compact &&
            (r.threads <= per_core || r.threads == topo.pu_count())) ||
           (r.placement == card_affinity::Affinity::scatter && r.threads <= topo.core_count());
  }
  return std::any_of(spec.runs.begin(), spec.runs.end(), [&r](const auto& p) {
    return p.first == r.placement && p.second == r.threads;
  });
}

Validation validate_device(DeviceModel& m, const std::vector<Run>& runs, const TrainSpec& spec,
                           const FitOptions& opts) {
  std::vector<Run> train, test;
  for (const Run& r : runs)
    if (r.device == m.device) (in_training(spec, m.topology, r) ? train : test).push_back(r);
  if (train.empty() && !test.empty())
    throw InputError(std::string("no ") + device_name(m.device) +
                     " run is in the training set: --train and --train-freqs select none of them");
  if (test.empty())
    throw InputError(std::string("no ") + device_name(m.device) +
                     " runs left to validate on: every run is in the training set");
  Validation v;
  v.fit = fit_device(m, train, opts);
  for (const Run& r : test) {
    const HeldOut h = predict_run(m, r);
    const double et = std::abs(h.time_err), ee = std::abs(h.energy_err);
    v.time_mean += et / double(test.size()), v.time_max = std::max(v.time_max, et);
    v.energy_mean += ee / double(test.size()), v.energy_max = std::max(v.energy_max, ee);
    v.held.push_back(h);
  }
  return v;
}

int run_validate(const ValidateArgs& a) {
  const std::vector<Run> runs = read_all_runs(a.common.run_files);
  TrainSpec spec = parse_train(a.train);
  spec.freqs = a.train_freqs;
  const FitOptions opts = fit_options(a.common);
  int status = 0, fitted = 0;
  for (Device d : {Device::host, Device::card}) {
    if (!a.common.device.empty() && parse_device(a.common.device) != d) continue;
    if (std::none_of(runs.begin(), runs.end(), [d](const Run& r) { return r.device == d; }))
      continue;
    DeviceModel m = unfitted_model(a.common, d, runs);
    const Validation v = validate_device(m, runs, spec, opts);
    print_fit(m, v.fit);
    print_validation(m, v);
    ++fitted;
    if (a.max_error_pct && 100 * std::max(v.time_mean, v.energy_mean) > *a.max_error_pct) {
      std::printf("%s: mean held-out error above %.4g%%\n", device_name(d), *a.max_error_pct);
      status = 3;
    }
  }
  if (fitted == 0) throw InputError("no " + a.common.device + " runs in the input");
  return status;
}

}  // namespace joule::advisor
