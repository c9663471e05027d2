// The real sysfs backends (cpufreq, powercap RAPL, hwmon, thermal zones)
// against fake trees: layouts of real drivers, missing and read-only files,
// odd frequency lists, shared domains and counter wrap-around.
#include <gtest/gtest.h>

#include "dvfs_cpufreq.hpp"
#include "fake_tree.hpp"
#include "meter.hpp"
#include "restore_guard.hpp"
#include "thermal.hpp"

namespace joule::platform {
namespace {

using test::FakeTree;

std::unique_ptr<Dvfs> cpufreq(const FakeTree& t, CpufreqStatus* st,
                              DvfsDomain mode = DvfsDomain::automatic,
                              const Machine& m = Machine::uniform(1, 4)) {
  RestoreGuard::instance().set_state_dir(t.state_dir());
  return make_cpufreq_dvfs(Sysfs(t.root()), m, mode, st);
}

TEST(Sysfs, ParsesCpuSetsAndOddFrequencyLists) {
  EXPECT_EQ(parse_cpu_set("0-3,8,10-11\n"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpu_set("2 0 1 "), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(parse_cpu_set(""), std::vector<int>{});
  EXPECT_EQ(parse_frequency_list("2400000 2400000 1200000  abc 0 -5 1800000\n"),
            (std::vector<std::uint32_t>{1200000, 1800000, 2400000}));
  EXPECT_TRUE(parse_frequency_list(" \n").empty());
}

TEST(Sysfs, RootIsPrefixedAndReadOnlyFilesAreNotWritable) {
  FakeTree t;
  t.write("/sys/x/rw", "1\n");
  t.write("/sys/x/ro", "2\n", 0444);
  Sysfs fs(t.root() + "/");
  EXPECT_EQ(fs.path("/sys/x/rw"), t.root() + "/sys/x/rw");
  EXPECT_EQ(fs.read_u64("/sys/x/rw"), 1u);
  EXPECT_TRUE(fs.writable("/sys/x/rw"));
  EXPECT_FALSE(fs.writable("/sys/x/ro"));  // even for root, as sysfs does
  EXPECT_FALSE(fs.write("/sys/x/ro", "3"));
  EXPECT_EQ(t.read("/sys/x/ro"), "2\n");
  EXPECT_FALSE(fs.read("/sys/x/missing").has_value());
  EXPECT_EQ(Sysfs("/").path("/sys/a"), "/sys/a");
}

TEST(Cpufreq, UserspaceGovernorPerCoreAndRestore) {
  FakeTree t;
  t.add_userspace_cpu(0, "0");
  t.add_userspace_cpu(1, "1");
  const auto before = t.snapshot();
  CpufreqStatus st;
  auto d = cpufreq(t, &st);
  ASSERT_EQ(d->num_domains(), 2);
  EXPECT_EQ(st.writable, 2);
  EXPECT_TRUE(d->caps() & kCapReal);
  EXPECT_TRUE(d->caps() & kCapPerCore);
  EXPECT_EQ(d->pstates(0), (std::vector<std::uint32_t>{1200000, 1600000, 2000000, 2400000}));
  EXPECT_EQ(d->frequency(0), 2400000u);       // from scaling_cur_freq
  EXPECT_TRUE(d->set_frequency(1, 1650000));  // snaps to 1.6 GHz
  EXPECT_EQ(d->frequency(1), 1600000u);
  EXPECT_EQ(t.read(FakeTree::cpu_dir(1) + "/scaling_governor"), "userspace");
  EXPECT_EQ(t.read(FakeTree::cpu_dir(1) + "/scaling_setspeed"), "1600000");
  EXPECT_EQ(t.read(FakeTree::cpu_dir(0) + "/scaling_governor"), "ondemand\n");  // untouched
  EXPECT_TRUE(std::filesystem::exists(RestoreGuard::instance().state_file_path()));
  d->restore();
  EXPECT_EQ(t.snapshot(), before);
  EXPECT_EQ(RestoreGuard::instance().size(), 0u);
}

TEST(Cpufreq, IntelPstateActiveModePinsMinAndMax) {
  FakeTree t;
  t.add_pstate_cpu(0);
  const auto before = t.snapshot();
  CpufreqStatus st;
  auto d = cpufreq(t, &st);
  ASSERT_EQ(d->num_domains(), 1);
  const auto& table = d->pstates(0);  // 100 MHz steps between cpuinfo min and max
  ASSERT_EQ(table.size(), 28u);
  EXPECT_EQ(table.front(), 800000u);
  EXPECT_EQ(table.back(), 3500000u);
  EXPECT_EQ(d->frequency(0), 3100000u);
  ASSERT_TRUE(d->set_frequency(0, 1000000));  // lowering: min first, then max
  EXPECT_EQ(t.read(FakeTree::cpu_dir(0) + "/scaling_min_freq"), "1000000");
  EXPECT_EQ(t.read(FakeTree::cpu_dir(0) + "/scaling_max_freq"), "1000000");
  ASSERT_TRUE(d->set_frequency(0, 3000000));  // raising: max first, then min
  EXPECT_EQ(t.read(FakeTree::cpu_dir(0) + "/scaling_min_freq"), "3000000");
  EXPECT_EQ(t.read(FakeTree::cpu_dir(0) + "/scaling_max_freq"), "3000000");
  EXPECT_EQ(t.read(FakeTree::cpu_dir(0) + "/scaling_governor"), "powersave\n");
  d->restore();
  EXPECT_EQ(t.snapshot(), before);
}

// The files stay open after the first change (which saves the originals):
// later changes reuse the descriptors, so a file replaced behind joule's
// back is not written; values of fewer digits leave no digits behind.
TEST(Cpufreq, RepeatedChangesReuseOpenFilesAndWriteExactValues) {
  FakeTree t;
  t.add_pstate_cpu(0);
  const auto before = t.snapshot();
  CpufreqStatus st;
  auto d = cpufreq(t, &st);
  ASSERT_EQ(d->num_domains(), 1);
  const std::string min = FakeTree::cpu_dir(0) + "/scaling_min_freq";
  const std::string max = FakeTree::cpu_dir(0) + "/scaling_max_freq";
  for (std::uint32_t khz : {3000000u, 800000u, 3500000u, 900000u}) {
    ASSERT_TRUE(d->set_frequency(0, khz));
    EXPECT_EQ(t.read(min), std::to_string(khz));
    EXPECT_EQ(t.read(max), std::to_string(khz));
  }
  t.remove(max);  // a new file at the same path: joule still holds the old one
  t.write(max, "900000");
  ASSERT_TRUE(d->set_frequency(0, 2000000));
  EXPECT_EQ(t.read(min), "2000000");
  EXPECT_EQ(t.read(max), "900000");
  t.write(max, "3500000\n");
  d->restore();
  EXPECT_EQ(t.snapshot(), before);
}

TEST(Cpufreq, SharedDomainThroughPolicySymlinks) {
  FakeTree t;
  const std::string policy = "/sys/devices/system/cpu/cpufreq/policy0";
  t.add_userspace_cpu(0, "0-3", policy);
  for (int c = 0; c < 4; ++c)
    t.link("../cpufreq/policy0", "/sys/devices/system/cpu/cpu" + std::to_string(c) + "/cpufreq");
  const auto before = t.snapshot();
  CpufreqStatus st;
  auto d = cpufreq(t, &st);
  ASSERT_EQ(d->num_domains(), 1);
  EXPECT_EQ(d->domain_cpus(0), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_TRUE(d->caps() & kCapPerChip);
  ASSERT_TRUE(d->set_frequency(2, 1200000));
  for (int c = 0; c < 4; ++c) EXPECT_EQ(d->frequency(c), 1200000u) << c;
  EXPECT_EQ(t.read(policy + "/scaling_setspeed"), "1200000");
  EXPECT_EQ(RestoreGuard::instance().size(), 2u);  // one policy: governor + setspeed
  d->restore();
  EXPECT_EQ(t.snapshot(), before);
}

TEST(Cpufreq, SharedDomainWithoutSymlinksAndChipMode) {
  FakeTree t;
  for (int c = 0; c < 4; ++c) t.add_userspace_cpu(c, c < 2 ? "0-1" : "2 3");
  const auto before = t.snapshot();
  CpufreqStatus st;
  auto d = cpufreq(t, &st);
  ASSERT_EQ(d->num_domains(), 2);
  ASSERT_TRUE(d->set_frequency(1, 2000000));
  EXPECT_EQ(t.read(FakeTree::cpu_dir(0) + "/scaling_setspeed"), "2000000");
  EXPECT_EQ(t.read(FakeTree::cpu_dir(1) + "/scaling_setspeed"), "2000000");
  EXPECT_EQ(t.read(FakeTree::cpu_dir(2) + "/scaling_setspeed"), "<unsupported>\n");
  d->restore();
  EXPECT_EQ(t.snapshot(), before);
  // Chip mode merges the kernel's policies per chip of the machine model.
  auto chip = cpufreq(t, &st, DvfsDomain::chip, Machine::uniform(1, 4));
  EXPECT_EQ(chip->num_domains(), 1);
  chip->restore();
}

TEST(Cpufreq, MissingFilesAreSkippedWithAReason) {
  FakeTree t;
  t.add_userspace_cpu(0, "0");
  t.add_userspace_cpu(1, "1");
  t.remove(FakeTree::cpu_dir(1) + "/scaling_available_frequencies");
  t.remove(FakeTree::cpu_dir(1) + "/cpuinfo_min_freq");
  t.remove(FakeTree::cpu_dir(1) + "/cpuinfo_max_freq");
  t.remove(FakeTree::cpu_dir(1) + "/scaling_min_freq");
  t.add_userspace_cpu(2, "2");
  t.remove(FakeTree::cpu_dir(2) + "/scaling_setspeed");   // falls back to min = max
  t.remove(FakeTree::cpu_dir(2) + "/related_cpus");       // affected_cpus is used
  t.write("/sys/devices/system/cpu/cpu3/online", "0\n");  // no cpufreq at all
  CpufreqStatus st;
  auto d = cpufreq(t, &st);
  EXPECT_EQ(d->num_domains(), 2);
  EXPECT_EQ(d->domain_of(1), -1);
  EXPECT_EQ(d->domain_of(3), -1);
  EXPECT_NE(st.detail.find("cpu1"), std::string::npos) << st.detail;
  ASSERT_TRUE(d->set_frequency(2, 1600000));
  EXPECT_EQ(t.read(FakeTree::cpu_dir(2) + "/scaling_max_freq"), "1600000");
  EXPECT_EQ(t.read(FakeTree::cpu_dir(2) + "/scaling_governor"), "ondemand\n");
  EXPECT_FALSE(d->set_frequency(1, 1600000));
  d->restore();
}

TEST(Cpufreq, ReadOnlyPoliciesAreLeftOut) {
  FakeTree t;
  t.add_userspace_cpu(0, "0");
  t.add_userspace_cpu(1, "1");
  t.write(FakeTree::cpu_dir(1) + "/scaling_governor", "ondemand\n", 0444);
  const auto before = t.snapshot();
  CpufreqStatus st;
  auto d = cpufreq(t, &st);
  EXPECT_EQ(st.domains, 2);
  EXPECT_EQ(st.writable, 1);
  EXPECT_NE(st.detail.find("read-only"), std::string::npos);
  EXPECT_EQ(d->domain_of(1), -1);
  EXPECT_EQ(t.snapshot(), before);
}

TEST(Cpufreq, OddFrequencyListIsSortedAndDeduplicated) {
  FakeTree t;
  t.add_userspace_cpu(0, "0");
  t.write(FakeTree::cpu_dir(0) + "/scaling_available_frequencies",
          "1800000 1800000 2400000 1200000", 0444);
  t.write(FakeTree::cpu_dir(0) + "/scaling_cur_freq", "1750000\n", 0444);
  CpufreqStatus st;
  auto d = cpufreq(t, &st);
  ASSERT_EQ(d->num_domains(), 1);
  EXPECT_EQ(d->pstates(0), (std::vector<std::uint32_t>{1200000, 1800000, 2400000}));
  EXPECT_EQ(d->frequency(0), 1800000u);                       // nearest to the current frequency
  EXPECT_EQ(Dvfs::nearest_level(d->pstates(0), 1500000), 1);  // a tie goes up
}

TEST(Rapl, PackageCoreDramZonesAndWrapAround) {
  FakeTree t;
  const std::string pc = "/sys/class/powercap";
  t.write(pc + "/intel-rapl:0/name", "package-0\n");
  t.write(pc + "/intel-rapl:0/energy_uj", "999000\n", 0400);
  t.write(pc + "/intel-rapl:0/max_energy_range_uj", "1000000\n", 0444);
  t.write(pc + "/intel-rapl:0:0/name", "core\n");
  t.write(pc + "/intel-rapl:0:0/energy_uj", "100\n", 0400);
  t.write(pc + "/intel-rapl:0:0/max_energy_range_uj", "1000000\n", 0444);
  t.write(pc + "/intel-rapl:0:1/name", "dram\n");
  t.write(pc + "/intel-rapl:0:1/energy_uj", "5000\n", 0400);
  t.write(pc + "/intel-rapl:0:1/max_energy_range_uj", "1000000\n", 0444);
  t.write(pc + "/intel-rapl:1/name", "package-1\n");
  t.write(pc + "/intel-rapl:1/energy_uj", "0\n", 0400);
  t.write(pc + "/intel-rapl:1/max_energy_range_uj", "1000000\n", 0444);
  t.write(pc + "/intel-rapl-mmio:0/name", "package-0\n");  // a duplicate view: ignored
  t.write(pc + "/intel-rapl-mmio:0/energy_uj", "7\n", 0400);
  std::string why;
  auto m = make_rapl_meter(Sysfs(t.root()), &why);
  ASSERT_TRUE(m) << why;
  m->start();
  t.write(pc + "/intel-rapl:0/energy_uj", "500\n", 0400);  // wrapped past 1 J
  t.write(pc + "/intel-rapl:0:0/energy_uj", "2100\n", 0400);
  t.write(pc + "/intel-rapl:0:1/energy_uj", "6000\n", 0400);
  t.write(pc + "/intel-rapl:1/energy_uj", "250000\n", 0400);
  m->sample();
  const auto d = m->totals();
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(d[0].name, "package-0");
  EXPECT_EQ(d[0].chip, 0);
  EXPECT_DOUBLE_EQ(d[0].joules, 1500e-6);  // (1000000 - 999000) + 500 uJ
  EXPECT_EQ(d[1].name, "package-0/core");
  EXPECT_EQ(d[1].kind, "core");
  EXPECT_DOUBLE_EQ(d[1].joules, 2000e-6);
  EXPECT_EQ(d[2].kind, "dram");
  EXPECT_EQ(d[2].chip, 0);
  EXPECT_EQ(d[3].chip, 1);
  EXPECT_DOUBLE_EQ(d[3].joules, 0.25);
  EXPECT_EQ(counter_delta(10, 5, 0), 5u);  // no range known: the new value only
}

TEST(Rapl, AbsentOrUnreadableGivesAReason) {
  FakeTree t;
  std::string why;
  EXPECT_FALSE(make_rapl_meter(Sysfs(t.root()), &why));
  EXPECT_NE(why.find("powercap"), std::string::npos) << why;
  t.write("/sys/class/powercap/intel-rapl:0/name", "package-0\n");  // no energy_uj
  EXPECT_FALSE(make_rapl_meter(Sysfs(t.root()), &why));
}

TEST(Thermal, HwmonCoretempAndK10tempAndThermalZones) {
  FakeTree t;
  t.write("/sys/class/hwmon/hwmon0/name", "coretemp\n");
  t.write("/sys/class/hwmon/hwmon0/temp1_label", "Package id 1\n");
  t.write("/sys/class/hwmon/hwmon0/temp1_input", "51000\n");
  t.write("/sys/class/hwmon/hwmon0/temp2_label", "Core 0\n");
  t.write("/sys/class/hwmon/hwmon0/temp2_input", "60000\n");
  t.write("/sys/class/hwmon/hwmon1/name", "coretemp\n");
  t.write("/sys/class/hwmon/hwmon1/temp1_label", "Package id 0\n");
  t.write("/sys/class/hwmon/hwmon1/temp1_input", "45000\n");
  t.write("/sys/class/hwmon/hwmon2/name", "nvme\n");
  t.write("/sys/class/hwmon/hwmon2/temp1_input", "30000\n");
  std::string why;
  auto th = make_sensor_thermal(Sysfs(t.root()), 2, &why);
  ASSERT_TRUE(th) << why;
  EXPECT_TRUE(th->measured());
  auto temps = th->update(0, {});
  ASSERT_EQ(temps.size(), 2u);
  EXPECT_DOUBLE_EQ(temps[0], 45.0);
  EXPECT_DOUBLE_EQ(temps[1], 51.0);

  FakeTree amd;
  amd.write("/sys/class/hwmon/hwmon3/name", "k10temp\n");
  amd.write("/sys/class/hwmon/hwmon3/temp1_label", "Tctl\n");
  amd.write("/sys/class/hwmon/hwmon3/temp1_input", "48500\n");
  auto a = make_sensor_thermal(Sysfs(amd.root()), 1, &why);
  ASSERT_TRUE(a);
  EXPECT_DOUBLE_EQ(a->update(0, {})[0], 48.5);

  FakeTree zones;
  zones.write("/sys/class/thermal/thermal_zone0/type", "acpitz\n");
  zones.write("/sys/class/thermal/thermal_zone0/temp", "27800\n");
  zones.write("/sys/class/thermal/thermal_zone1/type", "x86_pkg_temp\n");
  zones.write("/sys/class/thermal/thermal_zone1/temp", "41000\n");
  auto z = make_sensor_thermal(Sysfs(zones.root()), 1, &why);
  ASSERT_TRUE(z);
  EXPECT_DOUBLE_EQ(z->update(0, {})[0], 41.0);

  FakeTree none;
  none.write("/sys/class/thermal/thermal_zone0/type", "acpitz\n");
  none.write("/sys/class/thermal/thermal_zone0/temp", "27800\n");
  EXPECT_FALSE(make_sensor_thermal(Sysfs(none.root()), 1, &why));
  EXPECT_FALSE(why.empty());
}

}  // namespace
}  // namespace joule::platform
