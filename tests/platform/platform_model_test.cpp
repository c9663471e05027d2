// Pure parts of the platform layer: power-model arithmetic, the RC thermal
// model, the machine model from hwloc synthetic topologies, the emulated
// DVFS table, and the configuration keys.
#include <gtest/gtest.h>

#include <cmath>

#include "config.hpp"
#include "dvfs.hpp"
#include "joule/joule.hpp"
#include "machine.hpp"
#include "platform_settings.hpp"
#include "power_model.hpp"
#include "thermal.hpp"

namespace joule::platform {
namespace {

TEST(PowerModel, DefaultCalibrationIsSeed000) {
  core::Config c;
  PowerModel m(c.get<PlatformSettings>().power_busy, c.get<PlatformSettings>().power_idle,
               c.get<PlatformSettings>().power_uncore);
  EXPECT_DOUBLE_EQ(m.busy_watts(2400000), 36.3);
  EXPECT_DOUBLE_EQ(m.busy_watts(1200000), 20.4);
  // Between the points P = a + b f^3: 20.4 + 15.9 * (1.8^3 - 1.2^3) / (2.4^3 - 1.2^3).
  EXPECT_DOUBLE_EQ(m.busy_watts(1800000), 20.4 + 15.9 * (5.832 - 1.728) / (13.824 - 1.728));
  EXPECT_LT(m.busy_watts(1800000), (20.4 + 36.3) / 2);  // convex in f
  EXPECT_DOUBLE_EQ(m.idle_watts(), 14.52);
  EXPECT_DOUBLE_EQ(m.uncore_watts(), 0.0);
}

TEST(PowerModel, EnergyArithmeticIsExact) {
  PowerModel m({{2.4, 36.3}, {1.2, 20.4}}, 10.0, 3.0);
  const std::vector<std::uint32_t> table = {1200000, 2400000};
  // 1 s at 1.2 GHz, 2 s at 2.4 GHz, 0.5 s asleep.
  const double j = m.core_joules(table, {1'000'000'000, 2'000'000'000}, 500'000'000);
  EXPECT_DOUBLE_EQ(j, 20.4 * 1.0 + 36.3 * 2.0 + 10.0 * 0.5);
  EXPECT_DOUBLE_EQ(m.uncore_joules(2'000'000'000), 6.0);
  EXPECT_DOUBLE_EQ(m.core_joules(table, {0, 0}, 0), 0.0);
  PowerModel flat({{2.0, 12.5}}, 0.0, 0.0);  // one point: constant
  EXPECT_DOUBLE_EQ(flat.busy_watts(1000000), 12.5);
  EXPECT_DOUBLE_EQ(flat.core_joules({1000000, 3000000}, {4'000'000'000, 4'000'000'000}, 7), 100.0);
}

TEST(PowerModel, SeveralPointsInterpolatePiecewise) {
  PowerModel m({{1.0, 10.0}, {2.0, 20.0}, {3.0, 50.0}}, 0, 0);
  EXPECT_DOUBLE_EQ(m.busy_watts(1000000), 10.0);
  EXPECT_DOUBLE_EQ(m.busy_watts(2000000), 20.0);
  EXPECT_DOUBLE_EQ(m.busy_watts(3000000), 50.0);
  EXPECT_DOUBLE_EQ(m.busy_watts(2500000), 20.0 + 30.0 * (15.625 - 8.0) / (27.0 - 8.0));
  EXPECT_GE(m.busy_watts(100000), 0.0);  // extrapolation never goes negative
}

TEST(RcThermal, SteadyStateAndFirstOrderStep) {
  RcParams p{22.0, 1.0, 0.5, 1.0, 10.0, {0.0, 11.0}};
  RcThermal th(p, 2, 0.0, 0);
  EXPECT_DOUBLE_EQ(th.steady_state(0, 40.0), 22.0 + 20.0 + 1.0);
  EXPECT_DOUBLE_EQ(th.steady_state(1, 40.0), 33.0 + 20.0 + 1.0);  // the hot spot
  // 40 W for one time constant: 1 - 1/e of the way from 23 to 43.
  auto t = th.update(10'000'000'000ull, {400.0, 400.0});
  EXPECT_NEAR(t[0], 43.0 + (23.0 - 43.0) * std::exp(-1.0), 1e-9);
  EXPECT_NEAR(t[1], 54.0 + (34.0 - 54.0) * std::exp(-1.0), 1e-9);
  t = th.update(1'000'000'000'000ull, {400.0, 400.0});  // idle for long: back to 23 / 34
  EXPECT_NEAR(t[0], 23.0, 1e-6);
  EXPECT_NEAR(t[1], 34.0, 1e-6);
}

TEST(MachineModel, SyntheticTopologies) {
  Machine m = Machine::load("package:2 numa:1 core:2 pu:2");
  EXPECT_TRUE(m.synthetic());
  EXPECT_EQ(m.num_chips(), 2);
  EXPECT_EQ(m.num_cores(), 4);
  EXPECT_EQ(m.num_pus(), 8);
  EXPECT_EQ(m.num_numa(), 2);
  EXPECT_EQ(m.chip_of(0), 0);
  EXPECT_EQ(m.chip_of(7), 1);
  EXPECT_EQ(m.pu_of(5).numa, 1);
  EXPECT_EQ(m.cpus_of_chip(1), (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(m.chip_of(12), m.chip_of(4));  // beyond the model: mod N
  EXPECT_THROW(Machine::load("bogus:7"), std::runtime_error);
  Machine here = Machine::load("");
  EXPECT_FALSE(here.synthetic());
  EXPECT_GE(here.num_pus(), 1);
}

TEST(EmulatedDvfs, TableLevelsResidencyAndStall) {
  core::Config c;
  auto d = make_emulated_dvfs({{0}, {1, 2}}, c.get<PlatformSettings>().pstate_table(), 5000);
  const auto& t = d->pstates(1);
  ASSERT_EQ(t.size(), 13u);  // 1.2 to 2.4 GHz in 0.1 GHz steps
  EXPECT_EQ(t.front(), 1200000u);
  EXPECT_EQ(t.back(), 2400000u);
  EXPECT_EQ(d->frequency(0), 2400000u);
  EXPECT_TRUE(d->caps() & kCapStretch);
  EXPECT_TRUE(d->caps() & kCapPerChip);
  EXPECT_TRUE(d->set_frequency(2, 1300000));
  EXPECT_EQ(d->frequency(1), 1300000u);  // same domain
  EXPECT_EQ(d->frequency(0), 2400000u);
  EXPECT_EQ(d->take_stall_ns(1), 5000u);
  EXPECT_EQ(d->take_stall_ns(1), 0u);
  EXPECT_EQ(d->take_stall_ns(0), 0u);
  EXPECT_TRUE(d->set_frequency(2, 1300000));  // no change, no stall
  EXPECT_EQ(d->take_stall_ns(2), 5000u);      // from the first change only
  EXPECT_FALSE(d->set_level(0, 99));
  EXPECT_FALSE(d->set_frequency(7, 1200000));
  const auto res = d->residency(1, ~0ull >> 1);
  EXPECT_GT(res[1], 0u);
  auto none = make_none_dvfs();
  EXPECT_FALSE(none->can_set());
  EXPECT_EQ(none->frequency(0), 0u);
}

TEST(PlatformConfig, KeysParseAndRoundTrip) {
  core::Config c;
  c.set("JOULE_PSTATES", "1.0,2.0, 1.5");
  EXPECT_EQ(c.get<PlatformSettings>().pstate_table(),
            (std::vector<std::uint32_t>{1000000, 1500000, 2000000}));
  c.set("JOULE_PSTATES", "0.8-1.6:0.4");
  EXPECT_EQ(c.get<PlatformSettings>().pstate_table(),
            (std::vector<std::uint32_t>{800000, 1200000, 1600000}));
  c.set("JOULE_MEMORY_BOUND", "lu:0.3, a:b:0.5 ,*:0.1");
  ASSERT_EQ(c.get<PlatformSettings>().memory_bound.size(), 2u);
  EXPECT_EQ(c.get<PlatformSettings>().memory_bound[1].first, "a:b");
  EXPECT_DOUBLE_EQ(c.get<PlatformSettings>().memory_bound_default, 0.1);
  c.set("JOULE_POWER_BUSY", "2.0:30,1.0:10");
  EXPECT_EQ(c.get<PlatformSettings>().power_busy.front(), std::make_pair(1.0, 10.0));
  c.set("JOULE_THERMAL_MODEL", "beta=0.25,tau=5");
  EXPECT_DOUBLE_EQ(c.get<PlatformSettings>().rc.beta, 0.25);
  EXPECT_DOUBLE_EQ(c.get<PlatformSettings>().rc.air, 22.0);
  c.set("JOULE_THERMAL_HOTSPOT", "1:+11");
  EXPECT_EQ(c.get<PlatformSettings>().hotspots.front(), std::make_pair(1, 11.0));
  c.set("JOULE_TOPOLOGY", "package:2 core:1 pu:1");
  c.set("JOULE_COUNTER_EVENTS", "perf::TASK-CLOCK");
  const std::string dump = c.dump_text();
  for (const char* s :
       {"JOULE_PSTATES=0.8-1.6:0.4", "JOULE_MEMORY_BOUND=lu:0.3,a:b:0.5,*:0.1",
        "JOULE_POWER_BUSY=1:10,2:30", "JOULE_THERMAL_MODEL=air=22,alpha=1,beta=0.25,gamma=0,tau=5",
        "JOULE_DVFS=auto", "JOULE_METER=auto", "JOULE_COUNTERS=none"})
    EXPECT_NE(dump.find(s), std::string::npos) << s << "\n" << dump;
  core::Config again;  // every value the dump prints is accepted back
  for (const auto& k : core::config_keys()) {
    const std::string n = k.name;
    if (n.rfind("JOULE_P", 0) == 0 || n.find("THERMAL") != std::string::npos) {
      EXPECT_NO_THROW(again.set(n, k.get(c))) << n;
    }
  }
}

TEST(PlatformConfig, BadValuesNameTheKeyAndAllowedValues) {
  const std::pair<const char*, const char*> bad[] = {
      {"JOULE_DVFS", "turbo"},          {"JOULE_DVFS_DOMAIN", "socket"},
      {"JOULE_PSTATES", "2.4-1.2:0.1"}, {"JOULE_PSTATES", "1.2-2.4"},
      {"JOULE_PSTATES", "fast"},        {"JOULE_MEMORY_BOUND", "lu:1.5"},
      {"JOULE_MEMORY_BOUND", "lu"},     {"JOULE_METER", "nvml"},
      {"JOULE_POWER_BUSY", "2.4:-1"},   {"JOULE_POWER_BUSY", "2.4:1,2.4:2"},
      {"JOULE_POWER_IDLE", "x"},        {"JOULE_THERMAL", "ipmi"},
      {"JOULE_THERMAL_MODEL", "rho=1"}, {"JOULE_THERMAL_HOTSPOT", "a:1"},
      {"JOULE_COUNTERS", "perf"},       {"JOULE_TOPOLOGY", "socket:two"},
      {"JOULE_DVFS_LATENCY_US", "-1"},  {"JOULE_SYSFS_ROOT", ""},
  };
  for (const auto& [k, v] : bad) {
    core::Config c;
    try {
      c.set(k, v);
      ADD_FAILURE() << k << "=" << v << " accepted";
    } catch (const joule::error& e) {
      EXPECT_EQ(e.code(), JOULE_ERR_CONFIG);
      const std::string m = e.what();
      EXPECT_NE(m.find(std::string(k) + "=" + v), std::string::npos) << m;
      EXPECT_NE(m.find("allowed values"), std::string::npos) << m;
    }
  }
  core::Config c;
  try {
    c.set("JOULE_DVFS", "turbo");
  } catch (const joule::error& e) {
    const std::string m = e.what();
    for (const char* s : {"auto", "none", "emulated", "cpufreq"})
      EXPECT_NE(m.find(s), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace joule::platform
