// The model fit recovers known parameters: runs generated with the model
// itself (plus ±3% noise), fitted, then every configuration predicted
// against the true model; Ramapantulu's accuracy bar is < 15%.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "configs.hpp"
#include "fit.hpp"

namespace ja = joule::advisor;
using joule::card_affinity::Affinity;

namespace {

struct Spec {
  int threads;
  Affinity placement;
  double freq;
};

std::vector<ja::Run> synthesize(const ja::DeviceModel& truth, const std::vector<Spec>& specs,
                                bool counters, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> noise(0.97, 1.03);
  std::vector<ja::Run> runs;
  for (const Spec& s : specs) {
    const ja::Shape shape = ja::shape_of(truth.topology, s.threads, s.placement);
    const ja::Prediction p = ja::predict(truth, shape, s.freq);
    ja::Run r;
    r.device = truth.device;
    r.threads = s.threads;
    r.placement = s.placement;
    r.freq_ghz = s.freq;
    r.time_s = p.time_s * noise(rng);
    r.energy_j = p.energy_j * noise(rng);
    if (counters) {
      const double cycles = r.time_s * s.threads * s.freq * 1e9;
      r.cycles = cycles;
      r.mem_stall_frac = 1 - truth.time.work_cycles * noise(rng) / cycles;
    }
    runs.push_back(r);
  }
  return runs;
}

// Mean and max relative error of the fitted model over every configuration.
std::pair<double, double> prediction_error(const ja::DeviceModel& truth,
                                           const ja::DeviceModel& fitted) {
  double sum = 0, worst = 0;
  const auto configs = ja::enumerate_configs({fitted});
  for (const ja::Config& c : configs) {
    const ja::Prediction t = ja::predict(truth, c.shape, c.freq_ghz);
    for (double e : {std::abs(c.predicted.time_s / t.time_s - 1),
                     std::abs(c.predicted.energy_j / t.energy_j - 1)}) {
      sum += e;
      worst = std::max(worst, e);
    }
  }
  return {sum / (2 * configs.size()), worst};
}

ja::DeviceModel phi_truth() {
  ja::DeviceModel m;
  m.device = ja::Device::card;
  m.freqs_ghz = {1.053};
  m.f_ref_ghz = 1.053;
  m.time = {4e12, 0.35, 0.6, 0.7, 0};
  m.power = {100, 1.5, 0.3, 2};
  return m;
}

// The thesis's measurement plan (§5.2): compact on one core (τ = 1..4), scatter
// with one thread per core (c = 1..60), plus a few mixed points.
std::vector<Spec> phi_plan(double f) {
  std::vector<Spec> s;
  for (int t = 1; t <= 4; ++t) s.push_back({t, Affinity::compact, f});
  for (int t : {1, 2, 4, 8, 15, 30, 45, 60}) s.push_back({t, Affinity::scatter, f});
  for (int t : {32, 120, 240}) s.push_back({t, Affinity::compact, f});
  s.push_back({180, Affinity::scatter, f});
  return s;
}

}  // namespace

TEST(AdvisorFit, RecoversCardModel) {
  const ja::DeviceModel truth = phi_truth();
  ja::DeviceModel fitted = truth;
  fitted.time = {};
  fitted.power = {};
  const ja::FitReport rep = ja::fit_device(fitted, synthesize(truth, phi_plan(1.053), false, 7));
  EXPECT_LT(rep.time_mean_err, 0.05);
  // SMT-like runs (max of the two contention terms): auto keeps overlap.
  EXPECT_EQ(fitted.time.contention, ja::Contention::overlap);
  EXPECT_FALSE(rep.contention_undecided);
  EXPECT_LT(rep.overlap_time_err, rep.serial_time_err);
  EXPECT_FALSE(rep.work_from_counters);
  EXPECT_NEAR(fitted.time.intra, 0.35, 0.35 * 0.15);
  EXPECT_NEAR(fitted.time.queue, 0.7, 0.1);
  EXPECT_NEAR(fitted.power.idle_w, 100, 5);
  const auto [mean, worst] = prediction_error(truth, fitted);
  EXPECT_LT(mean, 0.15);
  EXPECT_LT(worst, 0.15);
}

TEST(AdvisorFit, WorkCyclesFromCounters) {
  const ja::DeviceModel truth = phi_truth();
  ja::DeviceModel fitted = truth;
  fitted.time = {};
  const ja::FitReport rep = ja::fit_device(fitted, synthesize(truth, phi_plan(1.053), true, 11));
  EXPECT_TRUE(rep.work_from_counters);
  EXPECT_NEAR(fitted.time.work_cycles / 4e12, 1, 0.04);
  EXPECT_LT(prediction_error(truth, fitted).first, 0.15);
}

TEST(AdvisorFit, RecoversHostModelWithFrequencies) {
  ja::DeviceModel truth;
  truth.device = ja::Device::host;
  truth.topology = joule::card_affinity::CardTopology::uniform(2, 8, 2);
  truth.freqs_ghz = {1.2, 1.8, 2.4, 2.7};
  truth.f_ref_ghz = 2.7;
  truth.time = {2e11, 0.6, 0.4, 0.5, 0};
  truth.power = {60, 6, 1.5, 2.5};
  std::vector<Spec> plan;
  for (double f : truth.freqs_ghz)
    for (int t : {1, 2, 8, 16, 32}) plan.push_back({t, Affinity::scatter, f});
  for (int t : {2, 4, 12}) plan.push_back({t, Affinity::compact, 2.7});
  ja::DeviceModel fitted = truth;
  fitted.time = {};
  fitted.power = {};
  ja::fit_device(fitted, synthesize(truth, plan, false, 3));
  EXPECT_NEAR(fitted.power.gamma, 2.5, 0.5);
  const auto [mean, worst] = prediction_error(truth, fitted);
  EXPECT_LT(mean, 0.15);
  EXPECT_LT(worst, 0.15);
}

TEST(AdvisorFit, LocalityOnlyWithBalancedAndScatterRuns) {
  ja::DeviceModel truth = phi_truth();
  truth.time.locality = 0.4;
  std::vector<Spec> plan = phi_plan(1.053);
  for (int t : {90, 120, 180, 239}) plan.push_back({t, Affinity::balanced, 1.053});
  ja::DeviceModel fitted = truth;
  fitted.time = {};
  const ja::FitReport rep = ja::fit_device(fitted, synthesize(truth, plan, false, 5));
  EXPECT_TRUE(rep.locality_fitted);
  EXPECT_NEAR(fitted.time.locality, 0.4, 0.15);
  EXPECT_LT(prediction_error(truth, fitted).first, 0.15);
}

// Runs from time-sliced cores (stalls add up): auto picks serial, and
// forcing overlap on them predicts worse.
TEST(AdvisorFit, SerialContentionChosenForTimeSlicedRuns) {
  ja::DeviceModel truth = phi_truth();
  truth.time.contention = ja::Contention::serial;
  const std::vector<ja::Run> runs = synthesize(truth, phi_plan(1.053), false, 13);
  ja::DeviceModel fitted = truth;
  fitted.time = {};
  const ja::FitReport rep = ja::fit_device(fitted, runs);
  EXPECT_EQ(fitted.time.contention, ja::Contention::serial);
  EXPECT_LT(rep.serial_time_err, rep.overlap_time_err);
  EXPECT_LT(prediction_error(truth, fitted).first, 0.15);
  ja::DeviceModel forced = truth;
  forced.time = {};
  const ja::FitReport frep = ja::fit_device(forced, runs, {ja::Contention::overlap});
  EXPECT_TRUE(frep.contention_forced);
  EXPECT_EQ(forced.time.contention, ja::Contention::overlap);
  EXPECT_LT(frep.serial_time_err, 0);  // not tried
  EXPECT_GT(prediction_error(truth, forced).first, prediction_error(truth, fitted).first);
}

// Runs on one core, or with one thread per core, fit both forms alike:
// auto cannot choose and keeps the thesis's overlap.
TEST(AdvisorFit, ContentionUndecidedWithoutASharedCoreAmongBusyCores) {
  ja::DeviceModel truth = phi_truth();
  truth.time.contention = ja::Contention::serial;
  std::vector<Spec> plan;
  for (int t = 1; t <= 4; ++t) plan.push_back({t, Affinity::compact, 1.053});
  for (int t : {2, 8, 30, 60}) plan.push_back({t, Affinity::scatter, 1.053});
  ja::DeviceModel fitted = truth;
  fitted.time = {};
  const ja::FitReport rep = ja::fit_device(fitted, synthesize(truth, plan, false, 17));
  EXPECT_TRUE(rep.contention_undecided);
  EXPECT_EQ(fitted.time.contention, ja::Contention::overlap);
  EXPECT_GE(rep.serial_time_err, 0);
}

// A card measured at several P-states: γ and δ are fitted, and
// configurations at every frequency are predicted.
TEST(AdvisorFit, CardFrequencyExponentFromSeveralPStates) {
  ja::DeviceModel truth = phi_truth();
  truth.freqs_ghz = {0.5, 0.8, 1.053};
  truth.time.stall_freq_exp = 0;  // stalls stretch with the clock, as on the emulated card
  truth.power.gamma = 3;
  std::vector<Spec> plan = phi_plan(1.053);
  for (double f : {0.5, 0.8})
    for (int t : {1, 4, 60, 240}) plan.push_back({t, Affinity::compact, f});
  ja::DeviceModel fitted = truth;
  fitted.time = {};
  fitted.power = {};
  const ja::FitReport rep = ja::fit_device(fitted, synthesize(truth, plan, false, 19));
  EXPECT_TRUE(rep.gamma_fitted);
  EXPECT_NEAR(fitted.power.gamma, 3, 0.5);
  EXPECT_LT(fitted.time.stall_freq_exp, 0.3);
  const auto [mean, worst] = prediction_error(truth, fitted);
  EXPECT_LT(mean, 0.15);
  EXPECT_LT(worst, 0.15);
}

TEST(AdvisorFit, TooFewRuns) {
  const ja::DeviceModel truth = phi_truth();
  ja::DeviceModel fitted = truth;
  EXPECT_THROW(ja::fit_device(fitted, synthesize(truth, {{1, Affinity::compact, 1.053}}, false, 1)),
               ja::InputError);
}
