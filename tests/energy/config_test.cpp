// The JOULE_ENERGY_* keys through core::Config::set: each value lands in
// EnergySettings (the policy Options); a bad one names the key and the
// allowed values.
#include <gtest/gtest.h>

#include <joule/types.hpp>

#include "energy_config.hpp"

namespace joule::energy::test {
namespace {

class EnergyConfig : public ::testing::Test {
 protected:
  void SetUp() override { core::add_config_section(energy_config_keys); }
  core::Config cfg;
};

TEST_F(EnergyConfig, ValuesReachTheOptions) {
  cfg.set("JOULE_ENERGY_POLICY", "cg-energylb");
  cfg.set("JOULE_ENERGY_THRESHOLD", "2.5");
  cfg.set("JOULE_ENERGY_QUANTISE", "round");
  cfg.set("JOULE_ENERGY_LOAD_NORM", "as-written");
  cfg.set("JOULE_ENERGY_BALANCER", "refine");
  cfg.set("JOULE_ENERGY_ON_BALANCE", "lb-then-dvfs");
  cfg.set("JOULE_ENERGY_PERIOD", "5");
  cfg.set("JOULE_ENERGY_WINDOW_MS", "50");
  cfg.set("JOULE_ENERGY_TIME_BUDGET", "0.03");
  cfg.set("JOULE_ENERGY_T_MAX", "70");
  cfg.set("JOULE_ENERGY_TOLERANCE", "0.05");
  cfg.set("JOULE_ENERGY_MPI_SLACK_US", "250");
  cfg.set("JOULE_ENERGY_SPLIT_OBJECTIVE", "edp");
  cfg.set("JOULE_ENERGY_MASKS", "off");
  EXPECT_EQ(cfg.get<EnergySettings>().policy, "cg-energylb");
  const Options& o = options_from_config(cfg);
  EXPECT_DOUBLE_EQ(o.threshold, 2.5);
  EXPECT_EQ(o.quantise, Quantise::round);
  EXPECT_EQ(o.load_norm, LoadNorm::as_written);
  EXPECT_EQ(o.balancer, Balancer::refine);
  EXPECT_EQ(o.on_balance, OnBalance::lb_then_dvfs);
  EXPECT_EQ(o.period, 5);
  EXPECT_DOUBLE_EQ(o.window_s, 0.05);
  EXPECT_DOUBLE_EQ(o.time_budget, 0.03);
  EXPECT_DOUBLE_EQ(o.t_max_c, 70);
  EXPECT_DOUBLE_EQ(o.tolerance, 0.05);
  EXPECT_DOUBLE_EQ(o.mpi_slack_s, 250e-6);
  EXPECT_EQ(o.objective, Objective::edp);
  EXPECT_FALSE(o.masks);
  EXPECT_NE(cfg.dump_text().find("JOULE_ENERGY_THRESHOLD=2.5"), std::string::npos);
}

TEST_F(EnergyConfig, DefaultsMatchTheOptions) {
  const Options& o = options_from_config(cfg);
  const Options d;
  EXPECT_EQ(o.threshold, d.threshold);
  EXPECT_EQ(o.quantise, d.quantise);
  EXPECT_EQ(o.load_norm, d.load_norm);
  EXPECT_EQ(o.balancer, d.balancer);
  EXPECT_EQ(o.period, d.period);
  EXPECT_DOUBLE_EQ(o.window_s, d.window_s);
  EXPECT_DOUBLE_EQ(o.mpi_slack_s, d.mpi_slack_s);
}

void expect_rejected(core::Config& cfg, const char* key, const char* value, const char* allowed) {
  try {
    cfg.set(key, value);
    ADD_FAILURE() << key << "=" << value << " accepted";
  } catch (const joule::error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(key), std::string::npos) << what;
    EXPECT_NE(what.find(allowed), std::string::npos) << what;
  }
}

TEST_F(EnergyConfig, BadValuesNameTheKeyAndTheAllowedValues) {
  expect_rejected(cfg, "JOULE_ENERGY_POLICY", "turbo", "fg-energylb, cg-energylb, queue-depth");
  expect_rejected(cfg, "JOULE_ENERGY_THRESHOLD", "0.5", "0 (fmax/fmin), or a number 1..1000");
  expect_rejected(cfg, "JOULE_ENERGY_THRESHOLD", "x", "1..1000");
  expect_rejected(cfg, "JOULE_ENERGY_QUANTISE", "floor", "ceil, round");
  expect_rejected(cfg, "JOULE_ENERGY_LOAD_NORM", "time", "work, as-written");
  expect_rejected(cfg, "JOULE_ENERGY_BALANCER", "scotch", "none, greedy, refine");
  expect_rejected(cfg, "JOULE_ENERGY_ON_BALANCE", "keep", "either, reset-max, lb-then-dvfs");
  expect_rejected(cfg, "JOULE_ENERGY_PERIOD", "0", "an integer 1..1000000");
  expect_rejected(cfg, "JOULE_ENERGY_WINDOW_MS", "0", "an integer 1..60000 (milliseconds)");
  expect_rejected(cfg, "JOULE_ENERGY_TIME_BUDGET", "0.6", "a number 0..0.5");
  expect_rejected(cfg, "JOULE_ENERGY_T_MAX", "-1", "a number 0..150 (0: off)");
  expect_rejected(cfg, "JOULE_ENERGY_TOLERANCE", "2", "a number 0..1");
  expect_rejected(cfg, "JOULE_ENERGY_MPI_SLACK_US", "0", "an integer 1..10000000 (microseconds)");
  expect_rejected(cfg, "JOULE_ENERGY_SPLIT_OBJECTIVE", "power", "energy, time, edp");
  expect_rejected(cfg, "JOULE_ENERGY_MASKS", "maybe", "yes");
}

TEST(EnergyRegistry, NamesAndAuto) {
  const auto names = energy_policy_names();
  for (const char* n :
       {"auto", "none", "fg-energylb", "cg-energylb", "queue-depth", "templb", "mpi-slack"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  for (const auto& n : names) {
    if (n == "auto") continue;
    EXPECT_EQ(make_energy_policy(n, Options{})->name(), n);
  }
  EXPECT_THROW(make_energy_policy("auto", Options{}), std::invalid_argument);
  EXPECT_EQ(resolve_auto(true, false), "fg-energylb");
  EXPECT_EQ(resolve_auto(true, true), "cg-energylb");
  EXPECT_EQ(resolve_auto(false, true), "queue-depth");
}

}  // namespace
}  // namespace joule::energy::test
