#include "advise.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

#include "fit.hpp"
#include "pareto.hpp"
#include "report.hpp"
#include "runs.hpp"

namespace joule::advisor {
namespace {

std::vector<double> frequencies(const std::vector<Run>& runs, Device d,
                                const std::vector<double>& given) {
  std::set<double> fs(given.begin(), given.end());
  if (fs.empty())
    for (const Run& r : runs)
      if (r.device == d) fs.insert(r.freq_ghz);
  for (double f : fs)
    if (f <= 0) throw InputError("frequencies must be > 0 GHz");
  return {fs.begin(), fs.end()};
}

}  // namespace

namespace {

void print_contention(const DeviceModel& m, const FitReport& r) {
  const char* form = contention_name(m.time.contention);
  if (r.contention_forced) {
    const double err =
        m.time.contention == Contention::overlap ? r.overlap_time_err : r.serial_time_err;
    std::printf("  contention: %s (forced by --contention; training time error %.1f%%)\n", form,
                100 * err);
    return;
  }
  if (r.contention_undecided) {
    std::printf(
        "  contention: %s (auto, undecided: no run has a shared core while other cores "
        "are busy, where the forms differ; training time error overlap %.1f%%, serial "
        "%.1f%%)\n",
        form, 100 * r.overlap_time_err, 100 * r.serial_time_err);
    return;
  }
  std::printf(
      "  contention: %s (auto, the lower training time error: overlap %.1f%%, serial "
      "%.1f%%)\n",
      form, 100 * r.overlap_time_err, 100 * r.serial_time_err);
}

}  // namespace

void print_fit(const DeviceModel& m, const FitReport& r) {
  const TimeParams& t = m.time;
  const PowerParams& p = m.power;
  std::printf("fit %s (%s, %d runs): W=%.4g cycles%s a=%.3f m=%.3f u=%.3f s=%.3f delta=%.2f\n",
              device_name(m.device), m.topology.description().c_str(), r.runs, t.work_cycles,
              r.work_from_counters ? " (counters)" : "", t.intra, t.mem, t.queue, t.locality,
              t.stall_freq_exp);
  print_contention(m, r);
  std::printf("  power: idle %.1f W + %.3f W/core + %.3f W/thread at %.3f GHz, gamma %.2f%s\n",
              p.idle_w, p.core_w, p.thread_w, m.f_ref_ghz, p.gamma,
              r.gamma_fitted ? "" : " (assumed, and delta 1: one measured frequency)");
  std::printf("  baseline error: time mean %.1f%% max %.1f%%, energy mean %.1f%% max %.1f%%\n",
              100 * r.time_mean_err, 100 * r.time_max_err, 100 * r.energy_mean_err,
              100 * r.energy_max_err);
}

FitOptions fit_options(const AdviseArgs& a) {
  FitOptions o;
  if (a.contention == "overlap")
    o.contention = Contention::overlap;
  else if (a.contention == "serial")
    o.contention = Contention::serial;
  else if (a.contention != "auto")
    throw InputError("--contention '" + a.contention +
                     "': unknown form (allowed: overlap, serial, auto)");
  return o;
}

DeviceModel unfitted_model(const AdviseArgs& a, Device d, const std::vector<Run>& runs) {
  DeviceModel m;
  m.device = d;
  m.topology = card_affinity::CardTopology::from_synthetic(d == Device::card ? a.card_topology
                                                                             : a.host_topology);
  m.freqs_ghz = frequencies(runs, d, d == Device::card ? a.card_freqs : a.host_freqs);
  m.f_ref_ghz = m.freqs_ghz.back();
  for (const Run& r : runs)
    if (r.device == d && r.threads > m.topology.pu_count())
      throw InputError(r.where + ": " + std::to_string(r.threads) + " threads, but the " +
                       device_name(d) + " (" + m.topology.description() + ") has " +
                       std::to_string(m.topology.pu_count()) + " PUs");
  return m;
}

std::vector<Run> read_all_runs(const std::vector<std::string>& files) {
  std::vector<Run> runs;
  for (const std::string& f : files) {
    std::vector<Run> more = read_runs(f);
    runs.insert(runs.end(), more.begin(), more.end());
  }
  return runs;
}

namespace {

std::vector<DeviceModel> fit_models(const AdviseArgs& a, const std::vector<Run>& runs) {
  std::vector<DeviceModel> models;
  const std::optional<Device> only =
      a.device.empty() ? std::nullopt : std::optional<Device>(parse_device(a.device));
  for (Device d : {Device::host, Device::card}) {
    if (only && d != *only) continue;
    if (std::none_of(runs.begin(), runs.end(), [d](const Run& r) { return r.device == d; }))
      continue;
    DeviceModel m = unfitted_model(a, d, runs);
    print_fit(m, fit_device(m, runs, fit_options(a)));
    models.push_back(std::move(m));
  }
  return models;
}

std::optional<size_t> choose(const AdviseArgs& a, const std::vector<TimeEnergy>& te) {
  if (a.deadline_s) {
    const auto best = best_under_deadline(te, *a.deadline_s);
    if (!best)
      throw InputError("no configuration meets the deadline of " + std::to_string(*a.deadline_s) +
                       " s");
    return best;
  }
  if (a.budget_j) {
    const auto best = best_under_budget(te, *a.budget_j);
    if (!best)
      throw InputError("no configuration fits the energy budget of " + std::to_string(*a.budget_j) +
                       " J");
    return best;
  }
  return std::nullopt;
}

}  // namespace

int run_advise(const AdviseArgs& a) {
  const std::vector<Run> runs = read_all_runs(a.run_files);
  const std::vector<DeviceModel> models = fit_models(a, runs);
  if (models.empty()) throw InputError("no " + a.device + " runs in the input");
  const std::vector<Config> configs = enumerate_configs(models);
  std::vector<TimeEnergy> te;
  for (const Config& c : configs) te.push_back({c.predicted.time_s, c.predicted.energy_j});
  const std::vector<size_t> front = pareto_front(te);
  std::printf("configurations: %zu, Pareto-optimal: %zu\n", configs.size(), front.size());
  std::printf("%12s %12s  %s\n", "time_s", "energy_j", "configuration");
  for (size_t i : front)
    std::printf("%12.4g %12.4g  %s\n", te[i].time, te[i].energy, describe(configs[i]).c_str());
  const std::optional<size_t> chosen = choose(a, te);
  if (chosen)
    std::printf("best %s: %s: %.4g s, %.4g J\n",
                a.deadline_s ? "under the deadline" : "within the energy budget",
                describe(configs[*chosen]).c_str(), te[*chosen].time, te[*chosen].energy);
  if (!a.csv_out.empty()) write_csv(a.csv_out, configs, front);
  if (!a.svg_out.empty()) write_svg(a.svg_out, configs, front, chosen);
  return 0;
}

}  // namespace joule::advisor
