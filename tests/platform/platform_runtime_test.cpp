// The platform layer inside a running runtime: emulated DVFS really slows a
// core, the API policies use, energy accounting, the report, and backend
// selection with fallbacks.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <iostream>

#include "fake_tree.hpp"
#include "joule/joule.hpp"
#include "log.hpp"
#include "platform.hpp"

namespace joule::platform {
namespace {

// Fixed work: the same instructions every call, about `ms` at full speed.
double spin_work(long iters) {
  volatile double x = 1.0;
  for (long i = 0; i < iters; ++i) x = x * 1.0000001 + 1e-9;
  return x;
}

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

// Iterations for about `ms` of CPU time (not wall time: the VM is shared).
long calibrate(double ms) {
  long iters = 100000;
  for (;;) {
    const double t0 = thread_cpu_ms();
    spin_work(iters);
    const double el = thread_cpu_ms() - t0;
    if (el > 5.0) return long(double(iters) * ms / el);
    iters *= 4;
  }
}

struct Timing {
  double elapsed;  // spawn to taskwait, seconds
  double body;     // the body's own wall time
};

// One labelled task of fixed work. Its elapsed time over its body's time
// is immune to the VM being shared: contention stretches both.
Timing time_task(const char* label, long iters) {
  double body = 0;
  const auto t0 = std::chrono::steady_clock::now();
  joule::spawn(
      [iters, &body] {
        const auto b0 = std::chrono::steady_clock::now();
        spin_work(iters);
        body = std::chrono::duration<double>(std::chrono::steady_clock::now() - b0).count();
      },
      joule::task_options{.label = label});
  joule::taskwait();
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), body};
}

const LabelStats& stats_of(const std::vector<LabelStats>& all, const char* label) {
  static const LabelStats none;
  for (const auto& s : all)
    if (s.label == label) return s;
  return none;
}

struct Ratios {
  double cpu, mem, raw;
};

// Interleaved rounds of the same fixed work at 2.4 and 1.2 GHz; for each
// kind the smallest elapsed/body over the rounds (noise only adds).
Ratios measure_ratios(Platform* p, int cpu, long iters) {
  double full = 1e9, half = 1e9, half_mem = 1e9, full_wall = 1e9, half_wall = 1e9;
  for (int round = 0; round < 5; ++round) {
    p->frequencies().set_core(cpu, 2400000);
    const Timing f = time_task("cpu-full", iters);
    p->frequencies().set_core(cpu, 1200000);
    const Timing h = time_task("cpu-half", iters);
    const Timing m = time_task("mem-half", iters);
    full = std::min(full, f.elapsed / f.body);
    half = std::min(half, h.elapsed / h.body);
    half_mem = std::min(half_mem, m.elapsed / m.body);
    full_wall = std::min(full_wall, f.elapsed);
    half_wall = std::min(half_wall, h.elapsed);
  }
  p->frequencies().set_core(cpu, 2400000);
  return {half / full, half_mem / full, half_wall / full_wall};
}

TEST(Emulation, HalfFrequencyTakesAboutTwiceAsLong) {
  const long iters = calibrate(20.0);
  joule::runtime rt({{"JOULE_ENERGY_POLICY", "none"},
                     {"JOULE_DVFS", "emulated"},
                     {"JOULE_WORKERS", "1"},
                     {"JOULE_MEMORY_BOUND", "mem-half:0.5"},
                     {"JOULE_DVFS_LATENCY_US", "0"}});
  Platform* p = current_platform();
  ASSERT_NE(p, nullptr);
  const int cpu = p->workers().cpu(0);
  ASSERT_EQ(p->frequencies().frequency(cpu), 2400000u);
  ASSERT_TRUE(p->frequencies().set_core(cpu, 1200000));
  EXPECT_EQ(p->frequencies().frequency(cpu), 1200000u);
  // A shared 2-core VM can deschedule a worker mid-spin: up to three tries.
  auto ok = [](const Ratios& r) {
    return r.cpu > 1.5 && r.cpu < 3.0 && r.mem > 1.1 && r.mem < 2.5;
  };
  Ratios r{};
  int tries = 0;
  do {
    r = measure_ratios(p, cpu, iters);
    ++tries;
    std::cout << "emulation ratio at half frequency: " << r.cpu << " (compute-bound), " << r.mem
              << " (memory-bound fraction 0.5); fastest half / fastest full wall time: " << r.raw
              << "\n";
  } while (!ok(r) && tries < 3);
  RecordProperty("ratio", std::to_string(r.cpu));
  RecordProperty("ratio_mem", std::to_string(r.mem));
  EXPECT_GT(r.cpu, 1.5);
  EXPECT_LT(r.cpu, 3.0);
  EXPECT_GT(r.mem, 1.1);  // half the slowdown: about 1.5
  EXPECT_LT(r.mem, 2.5);
  // The stretch itself is exact arithmetic on each task's measured time:
  // t * (2.4/1.2 - 1) * (1 - m).
  const auto all = p->workers().label_stats();
  const auto& c = stats_of(all, "cpu-half");
  const auto& mb = stats_of(all, "mem-half");
  EXPECT_EQ(c.tasks, 5u * unsigned(tries));
  EXPECT_EQ(stats_of(all, "cpu-full").stretched_ns, 0u);
  EXPECT_NEAR(double(c.stretched_ns), double(c.ns), 20.0);
  EXPECT_NEAR(double(mb.stretched_ns), 0.5 * double(mb.ns), 20.0);
}

TEST(Emulation, NestedTasksAreNotStretchedTwice) {
  joule::runtime rt({{"JOULE_ENERGY_POLICY", "none"},
                     {"JOULE_DVFS", "emulated"},
                     {"JOULE_WORKERS", "1"},
                     {"JOULE_DVFS_START", "1.2"}});
  Platform* p = current_platform();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->frequencies().frequency(p->workers().cpu(0)), 1200000u);
  joule::spawn(
      [] {  // the parent's own work is tiny; its children run inside its taskwait
        for (int i = 0; i < 4; ++i)
          joule::spawn([] { spin_work(200000); }, joule::task_options{.label = "child"});
        joule::taskwait();
      },
      joule::task_options{.label = "parent"});
  joule::taskwait();
  const auto all = p->workers().label_stats();
  const auto& parent = stats_of(all, "parent");
  const auto& child = stats_of(all, "child");
  ASSERT_EQ(child.tasks, 4u);
  ASSERT_EQ(parent.tasks, 1u);
  EXPECT_NEAR(double(child.stretched_ns), double(child.ns), 100.0);
  EXPECT_GT(parent.ns, child.ns);  // its wall time holds the children and their stretch
  EXPECT_LT(double(parent.stretched_ns), 0.25 * double(child.stretched_ns));
}

TEST(Emulation, FrequencyChangeLatencyStallsTheCore) {
  joule::runtime rt({{"JOULE_ENERGY_POLICY", "none"},
                     {"JOULE_DVFS", "emulated"},
                     {"JOULE_WORKERS", "1"},
                     {"JOULE_DVFS_LATENCY_US", "30000"}});
  Platform* p = current_platform();
  ASSERT_NE(p, nullptr);
  ASSERT_TRUE(p->frequencies().set_core(p->workers().cpu(0), 2300000));
  const auto t0 = std::chrono::steady_clock::now();
  joule::spawn([] {});
  joule::taskwait();
  // The stall is a busy wait until a deadline: a lower bound, not a timing guess.
  EXPECT_GE(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 0.030);
}

TEST(PlatformApi, SyntheticChipsAndChipWideFrequency) {
  joule::runtime rt({{"JOULE_ENERGY_POLICY", "none"},
                     {"JOULE_DVFS", "emulated"},
                     {"JOULE_DVFS_DOMAIN", "chip"},
                     {"JOULE_TOPOLOGY", "package:2 core:2 pu:1"},
                     {"JOULE_WORKERS", "4"},
                     {"JOULE_PSTATES", "1.0-2.0:0.25"}});
  Platform* p = current_platform();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->machine().num_chips(), 2);
  for (int w = 0; w < 4; ++w) EXPECT_EQ(p->workers().cpu(w), w);
  EXPECT_EQ(p->workers().cpus_of_chip(1), (std::vector<int>{2, 3}));
  EXPECT_EQ(p->frequencies().pstates(0),
            (std::vector<std::uint32_t>{1000000, 1250000, 1500000, 1750000, 2000000}));
  ASSERT_TRUE(p->frequencies().set_chip(1, 1300000));
  EXPECT_EQ(p->frequencies().frequency(2), 1250000u);
  EXPECT_EQ(p->frequencies().frequency(3), 1250000u);
  EXPECT_EQ(p->frequencies().frequency(0), 2000000u);
  const auto e = p->sensors().read_energy();
  EXPECT_EQ(e.chip_joules.size(), 2u);
  EXPECT_FALSE(e.chips_measured);
  EXPECT_EQ(e.source, "model");
  const auto temps = p->sensors().temperatures();
  ASSERT_EQ(temps.size(), 2u);
  EXPECT_GT(temps[0], 0.0);
}

TEST(PlatformApi, ModelledEnergyIsPowerTimesTime) {
  // 10 W busy or idle: energy must be 10 W x wall time x workers.
  const auto t0 = std::chrono::steady_clock::now();
  double joules = 0, seconds = 0;
  {
    joule::runtime rt({{"JOULE_ENERGY_POLICY", "none"},
                       {"JOULE_DVFS", "emulated"},
                       {"JOULE_WORKERS", "2"},
                       {"JOULE_POWER_BUSY", "1.2:10,2.4:10"},
                       {"JOULE_POWER_IDLE", "10"}});
    Platform* p = current_platform();
    ASSERT_NE(p, nullptr);
    for (int i = 0; i < 50; ++i) joule::spawn([] { spin_work(20000); });
    joule::taskwait();
    const auto e = p->sensors().read_energy();
    joules = e.total_joules();
    seconds = e.seconds;
    EXPECT_EQ(e.worker_joules.size(), 2u);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LE(seconds, wall);
  EXPECT_NEAR(joules, 10.0 * 2 * seconds, 10.0 * 2 * seconds * 0.05 + 0.002);
}

TEST(PlatformReport, EnergySectionWithResidencyAndLabels) {
  testing::internal::CaptureStderr();
  {
    joule::runtime rt({{"JOULE_ENERGY_POLICY", "none"},
                       {"JOULE_DVFS", "emulated"},
                       {"JOULE_WORKERS", "2"},
                       {"JOULE_REPORT", "1"}});
    Platform* p = current_platform();
    ASSERT_NE(p, nullptr);
    for (int i = 0; i < 20; ++i)
      joule::spawn([] { spin_work(10000); }, joule::task_options{.label = "report-work"});
    joule::taskwait();
    p->frequencies().set_core(p->workers().cpu(1), 1200000);
    for (int i = 0; i < 20; ++i)
      joule::spawn([] { spin_work(10000); }, joule::task_options{.label = "report-work"});
    joule::taskwait();
  }
  const std::string err = testing::internal::GetCapturedStderr();
  for (const char* s : {"== platform ==", "dvfs emulated", "J modelled", "average power",
                        "chip 0:", "core: cpu", "frequency residency:", "2.40 GHz",
                        "emulated DVFS:", "tasks per label:", "report-work", "temperature"})
    EXPECT_NE(err.find(s), std::string::npos) << s << "\n" << err;
  EXPECT_EQ(err.find("warning"), std::string::npos) << err;
}

TEST(PlatformSelection, DefaultsOnThisMachineStayOff) {
  test::FakeTree empty;  // no cpufreq, powercap or hwmon: like this VM
  testing::internal::CaptureStderr();
  {
    joule::runtime rt({{"JOULE_ENERGY_POLICY", "none"},
                       {"JOULE_SYSFS_ROOT", empty.root()},
                       {"JOULE_WORKERS", "1"}});
    EXPECT_EQ(current_platform(), nullptr);  // nothing observed: no hot-path cost
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(PlatformSelection, CpufreqWithoutPermissionFallsBackToEmulatedOnce) {
  test::FakeTree t;
  t.add_userspace_cpu(0, "0");
  t.write(test::FakeTree::cpu_dir(0) + "/scaling_governor", "ondemand\n", 0444);
  t.write(test::FakeTree::cpu_dir(0) + "/scaling_setspeed", "<unsupported>\n", 0444);
  const auto before = t.snapshot();
  core::reset_warn_once();
  testing::internal::CaptureStderr();
  for (int i = 0; i < 2; ++i) {
    joule::runtime rt({{"JOULE_ENERGY_POLICY", "none"},
                       {"JOULE_DVFS", "cpufreq"},
                       {"JOULE_SYSFS_ROOT", t.root()},
                       {"JOULE_WORKERS", "1"},
                       {"JOULE_STATE_DIR", t.state_dir()}});
    Platform* p = current_platform();
    ASSERT_NE(p, nullptr);
    EXPECT_STREQ(p->dvfs().name(), "emulated");
  }
  const std::string err = testing::internal::GetCapturedStderr();
  const auto first = err.find("not writable");
  EXPECT_NE(first, std::string::npos) << err;
  EXPECT_EQ(err.find("not writable", first + 1), std::string::npos) << err;  // said once
  EXPECT_EQ(t.snapshot(), before);
}

TEST(PlatformSelection, AutoPicksCpufreqRaplAndHwmonWhenPresent) {
  test::FakeTree t;
  t.add_userspace_cpu(0, "0");
  t.add_userspace_cpu(1, "1");
  t.write("/sys/class/powercap/intel-rapl:0/name", "package-0\n");
  t.write("/sys/class/powercap/intel-rapl:0/energy_uj", "1000\n");
  t.write("/sys/class/powercap/intel-rapl:0/max_energy_range_uj", "262143328850\n");
  t.write("/sys/class/hwmon/hwmon0/name", "coretemp\n");
  t.write("/sys/class/hwmon/hwmon0/temp1_label", "Package id 0\n");
  t.write("/sys/class/hwmon/hwmon0/temp1_input", "47000\n");
  const auto before = t.snapshot();
  {
    joule::runtime rt({{"JOULE_ENERGY_POLICY", "none"},
                       {"JOULE_SYSFS_ROOT", t.root()},
                       {"JOULE_WORKERS", "1"},
                       {"JOULE_STATE_DIR", t.state_dir()}});
    Platform* p = current_platform();
    ASSERT_NE(p, nullptr);  // auto found cpufreq
    EXPECT_STREQ(p->dvfs().name(), "cpufreq");
    ASSERT_TRUE(p->frequencies().set_core(p->workers().cpu(0), 1200000));
    EXPECT_EQ(t.read(test::FakeTree::cpu_dir(p->workers().cpu(0)) + "/scaling_setspeed"),
              "1200000");
    t.write("/sys/class/powercap/intel-rapl:0/energy_uj", "3001000\n");
    const auto e = p->sensors().read_energy();
    EXPECT_TRUE(e.chips_measured);
    EXPECT_EQ(e.source, "rapl");
    EXPECT_DOUBLE_EQ(e.chip_joules[0], 3.0);
    EXPECT_DOUBLE_EQ(p->sensors().temperatures()[0], 47.0);
  }
  EXPECT_EQ(t.snapshot(), [&] {  // frequencies restored; only the meter's file changed
    auto b = before;
    b["/sys/class/powercap/intel-rapl:0/energy_uj"].first = "3001000\n";
    return b;
  }());
}

}  // namespace
}  // namespace joule::platform
