// The work splitter with a CUDA GPU as its second device, without a GPU:
// the busy/idle power fit (split_power_fit.hpp), the energy source label,
// the GPU's powers fitted from its energy counter deciding the energy split,
// the SM clock chosen or fixed (and restored), and bad options. The GPU's
// NVML is a test double of GpuMeter (gpu_meter.hpp) whose counter the test
// advances by what a GPU of known power would have used.
#include <gtest/gtest.h>
#include <joule/cuda.hpp>
#include <joule/split.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "../platform/fake_tree.hpp"
#include "error_of.hpp"
#include "split_controller.hpp"
#include "split_power_fit.hpp"

namespace joule::card_tasks {
namespace {

struct GpuState {
  double joules = 0;
  bool readable = true;
  std::vector<int> clocks{1980, 1500, 1000};
  int now = 1980;
  bool settable = true;
  std::vector<int> sets;
  int restores = 0;
};

class TestGpu final : public cuda::GpuMeter {
 public:
  explicit TestGpu(std::shared_ptr<GpuState> s) : s_(std::move(s)) {}
  std::string source() const override { return s_->readable ? "nvml" : "none: no NVML here"; }
  bool energy_joules(double* j) const override { return s_->readable && (*j = s_->joules, true); }
  bool power_watts(double*) const override { return false; }
  std::vector<int> sm_clocks_mhz() const override { return s_->clocks; }
  int sm_clock_mhz() const override { return s_->now; }
  cuda::GpuClockChange set_sm_clock_mhz(int mhz) override {
    if (!s_->settable) return {false, "NVML: insufficient permissions"};
    s_->sets.push_back(mhz);
    s_->now = mhz;
    return {true, ""};
  }
  void restore() noexcept override {
    ++s_->restores;
    s_->now = s_->clocks.front();
  }

 private:
  std::shared_ptr<GpuState> s_;
};

joule::runtime model_runtime() {
  return joule::runtime{{"JOULE_WORKERS", "2"}, {"JOULE_METER", "model"}};
}

std::unique_ptr<cuda::GpuMeter> gpu_of(const std::shared_ptr<GpuState>& s) {
  return std::make_unique<TestGpu>(s);
}

TEST(PowerFit, RecoversBusyAndIdleFromVariedIterations) {
  PowerFit f({300, 60});
  EXPECT_DOUBLE_EQ(f.power().busy_watts, 300);  // the prior until a sample
  const double samples[][2] = {{1, 0.5}, {0.6, 0.9}, {0.8, 0.2}, {0.3, 1.1}, {1.2, 0}};
  for (const auto& s : samples) f.add(s[0], s[1], 200 * s[0] + 40 * s[1]);
  EXPECT_NEAR(f.power().busy_watts, 200, 1e-6);
  EXPECT_NEAR(f.power().idle_watts, 40, 1e-6);
  EXPECT_EQ(f.samples(), 5);
}

TEST(PowerFit, SettledRatiosFitTheBusyPowerAlone) {
  PowerFit f({300, 30});
  for (int i = 1; i <= 6; ++i) f.add(0.2 * i, 0.1 * i, 150 * 0.2 * i + 30 * 0.1 * i);
  EXPECT_NEAR(f.power().busy_watts, 150, 1e-6);
  EXPECT_DOUBLE_EQ(f.power().idle_watts, 30);  // not separable: kept
  PowerFit never_waits({300, 30});
  never_waits.add(2, 0, 500);
  EXPECT_DOUBLE_EQ(never_waits.power().busy_watts, 250);
}

TEST(PowerFit, EmptyOrBrokenSamplesAreIgnoredAndResetStartsOver) {
  PowerFit f({300, 60});
  f.add(0, 1, 50);
  f.add(1, 0, -5);
  f.add(1, -1, 50);
  EXPECT_EQ(f.samples(), 0);
  EXPECT_DOUBLE_EQ(f.power().busy_watts, 300);
  f.add(1, 0, 100);
  f.reset({10, 5});
  EXPECT_EQ(f.samples(), 0);
  EXPECT_DOUBLE_EQ(f.power().busy_watts, 10);
}

TEST(GpuSplit, TheEnergySourceSaysWhatIsMeasured) {
  auto st = std::make_shared<GpuState>();
  {
    auto rt = model_runtime();
    EXPECT_EQ(SplitController({.gpu = true}, gpu_of(st)).energy_source(), "gpu: nvml, cpu: model");
    st->readable = false;
    EXPECT_EQ(SplitController({.gpu = true}, gpu_of(st)).energy_source(),
              "gpu: model (none: no NVML here), cpu: model");
    EXPECT_EQ(SplitController({}).energy_source(), "card: model, cpu: model");
  }
  test::FakeTree t;  // a RAPL zone for the platform's meter
  t.write("/sys/class/powercap/intel-rapl:0/name", "package-0\n");
  t.write("/sys/class/powercap/intel-rapl:0/energy_uj", "1000\n");
  t.write("/sys/class/powercap/intel-rapl:0/max_energy_range_uj", "262143328850\n");
  joule::runtime rt({{"JOULE_WORKERS", "2"},
                     {"JOULE_METER", "rapl"},
                     {"JOULE_ENERGY_POLICY", "none"},
                     {"JOULE_SYSFS_ROOT", t.root()},
                     {"JOULE_STATE_DIR", t.state_dir()}});
  st->readable = true;
  EXPECT_EQ(SplitController({.gpu = true}, gpu_of(st)).energy_source(), "gpu: nvml, cpu: rapl");
}

struct Truth {
  double host_rate, gpu_rate;  // units per second
  DevicePower host, gpu;
};

// Runs iterations of n units timed from the rates; the GPU's counter rises by
// what `truth.gpu` uses over them (busy for its part, idle for the rest).
void run(SplitController& s, GpuState& st, const Truth& truth, int iters,
         std::int64_t n = 1000000) {
  for (int i = 0; i < iters; ++i) {
    const std::int64_t cut = s.cut(n);
    s.start_iteration();
    const double th = double(cut) / truth.host_rate, tg = double(n - cut) / truth.gpu_rate;
    const double t = std::max(th, tg);
    st.joules += truth.gpu.busy_watts * tg + truth.gpu.idle_watts * (t - tg);
    s.record(cut, th, n - cut, tg);
  }
}

double energy(double w, const Truth& tr, DevicePower gpu) {
  const double th = (1 - w) / tr.host_rate, tg = w / tr.gpu_rate, t = std::max(th, tg);
  return tr.host.busy_watts * th + tr.host.idle_watts * (t - th) + gpu.busy_watts * tg +
         gpu.idle_watts * (t - tg);
}

double best_share(const Truth& tr, DevicePower gpu) {
  double best = 0;
  for (int i = 0; i <= 1000; ++i)
    if (energy(i / 1000.0, tr, gpu) < energy(best, tr, gpu)) best = i / 1000.0;
  return best;
}

TEST(GpuSplit, MeasuredGpuPowerDecidesTheEnergySplit) {
  auto rt = model_runtime();
  auto st = std::make_shared<GpuState>();
  const Truth tr{1e6, 1.5e6, {100, 30}, {60, 40}};
  SplitController s({.objective = "energy", .host = tr.host, .gpu = true}, gpu_of(st));
  const DevicePower guess = s.card_power();
  // The guess and the truth want different splits: only the fit gets there.
  ASSERT_GT(std::abs(best_share(tr, guess) - best_share(tr, tr.gpu)), 0.1);
  run(s, *st, tr, 200);
  EXPECT_NEAR(s.card_power().busy_watts, 60, 1.0);
  EXPECT_NEAR(s.card_power().idle_watts, 40, 1.0);
  EXPECT_DOUBLE_EQ(s.host_power().busy_watts, 100);  // the CPUs' meter is the model: kept
  EXPECT_LE(energy(s.card_share(), tr, tr.gpu), energy(best_share(tr, tr.gpu), tr, tr.gpu) * 1.01);
}

TEST(GpuSplit, ClocksStayFixedWhenTheDriverRefusesOrNobodyAsks) {
  auto rt = model_runtime();
  auto st = std::make_shared<GpuState>();
  st->settable = false;
  {
    SplitController s({.card_freq = "auto", .gpu = true}, gpu_of(st));
    EXPECT_EQ(s.clocks(), "sm 1980 MHz, clocks fixed (NVML: insufficient permissions)");
    EXPECT_TRUE(s.card_freq_settled());
  }
  st->settable = true;
  SplitController s({.card_freq = "fixed", .gpu = true}, gpu_of(st));
  EXPECT_EQ(s.clocks(), "sm 1980 MHz, clocks fixed (card_freq fixed)");
  EXPECT_TRUE(st->sets.empty());
}

TEST(GpuSplit, ChoosesALowerSmClockForEnergyAndRestoresItAtTheEnd) {
  auto rt = model_runtime();
  auto st = std::make_shared<GpuState>();
  const DevicePower host{100, 30};
  {
    SplitController s(
        {.objective = "energy", .host = host, .card = {220, 20}, .card_freq = "auto", .gpu = true},
        gpu_of(st));
    EXPECT_EQ(s.clocks(), "sm 1980 MHz, chosen by the splitter among 3 clocks");
    for (int i = 0; i < 400; ++i) {  // the GPU: speed by f, dynamic power by f^3
      const double r = st->now / 1980.0;
      run(s, *st, {1e6, 3e6 * r, host, {20 + 200 * r * r * r, 20}}, 1);
    }
    EXPECT_LT(s.card_freq_ghz(), 1.98);
    EXPECT_LT(st->now, 1980);
  }
  for (int mhz : st->sets)
    EXPECT_NE(std::find(st->clocks.begin(), st->clocks.end(), mhz), st->clocks.end());
  EXPECT_EQ(st->restores, 1);
  EXPECT_EQ(st->now, 1980);
}

// The public API: the device must be the card or a GPU, and a GPU must exist.
TEST(GpuSplit, BadOptionsAreErrors) {
  auto rt = model_runtime();
  const auto message = [](const joule::split_options& o) {
    return joule_test::error_of([&] { joule::work_splitter s(o); });
  };
  EXPECT_EQ(message({.device = joule::device::host}),
            "joule::work_splitter: device 0 cannot take the second part (allowed: device::mic, "
            "device::cuda)");
  std::string why;
  const std::size_t gpus = joule::cuda_devices(&why).size();
  if (gpus == 0) {
    EXPECT_EQ(message({.device = joule::device::cuda}),
              "joule::work_splitter: no CUDA device: " + why);
  } else {
    EXPECT_EQ(message({.device = joule::device::cuda, .device_num = 99}),
              "joule::work_splitter: device_num 99 is not a GPU (allowed: 0.." +
                  std::to_string(gpus - 1) + ")");
  }
}

}  // namespace
}  // namespace joule::card_tasks
