// A CudaDevice's clocks and energy through its GPU meter, over the fake
// driver and the fake NVML (tests/offload/cuda/nvml/fake_nvml): the SM
// clock JOULE_CUDA_SM_CLOCK asks for is locked when the device opens and
// reset when it closes, frequencies() are the meter's SM clocks, a refused
// change is a clear error (at open: a warning), and energy() is measured.
#include <gtest/gtest.h>

#include <algorithm>

#include "cuda_device.hpp"
#include "cuda_fake_support.hpp"
#include "joule/types.hpp"
#include "nvml_fixture.hpp"

namespace {

using namespace joule::cuda;
using namespace joule::offload;

class GpuClocks : public joule_test::NvmlFixture {
 protected:
  void SetUp() override {
    NvmlFixture::SetUp();
    // The fake driver's GPUs (its NVML list is read once per process).
    ::setenv("FAKE_NVML_GPUS", "0000:10:00.0,0000:11:00.0", 1);
    ::setenv("FAKE_CUDA_DEVICES", "1", 1);
    settings_.driver = FAKE_CUDA_LIB;
  }
  std::unique_ptr<Device> open() {
    std::string why;
    auto devices = open_cuda_devices(settings_, &why);
    EXPECT_EQ(devices.size(), 1u) << why;
    return devices.empty() ? nullptr : std::move(devices[0]);
  }
  bool logged(const std::string& line) const { return calls().find(line) != std::string::npos; }
};

TEST_F(GpuClocks, TheSmClockAskedForIsLockedAtOpenAndResetAtClose) {
  settings_.sm_clock_mhz = 1410;
  auto dev = open();
  ASSERT_TRUE(dev);
  EXPECT_TRUE(logged("set_locked 0000:10:00.0 1410 1410")) << calls();
  EXPECT_DOUBLE_EQ(dev->frequency(), 1.41);
  EXPECT_FALSE(logged("reset_locked")) << calls();
  dev.reset();
  EXPECT_TRUE(logged("reset_locked 0000:10:00.0")) << calls();
  EXPECT_EQ(state_files(), 0u);
}

TEST_F(GpuClocks, FrequenciesAreTheMetersSmClocks) {
  auto dev = open();
  ASSERT_TRUE(dev);
  const std::vector<double> f = dev->frequencies();
  ASSERT_EQ(f.size(), 5u);
  EXPECT_DOUBLE_EQ(f.front(), 1.98);
  EXPECT_DOUBLE_EQ(f.back(), 0.6);
  EXPECT_TRUE(std::is_sorted(f.rbegin(), f.rend()));
  dev->set_frequency(1.005);
  EXPECT_TRUE(logged("set_locked 0000:10:00.0 1005 1005")) << calls();
  EXPECT_DOUBLE_EQ(dev->frequency(), 1.005);
  const std::string e = fake::error_of([&] { dev->set_frequency(1.234); });
  EXPECT_NE(e.find("1234 MHz refused"), std::string::npos) << e;
  dev.reset();
  EXPECT_TRUE(logged("reset_locked 0000:10:00.0")) << calls();
}

TEST_F(GpuClocks, ARefusedClockIsAnErrorAndNothingIsLeftToReset) {
  ::setenv("FAKE_NVML_PERMISSION", "deny", 1);
  settings_.sm_clock_mhz = 1410;
  auto dev = open();  // a warning, not a failure
  ASSERT_TRUE(dev);
  const std::string e = fake::error_of([&] { dev->set_frequency(1.41); });
  EXPECT_NE(e.find("needs root"), std::string::npos) << e;
  dev.reset();
  EXPECT_FALSE(logged("set_locked")) << calls();
  EXPECT_FALSE(logged("reset_locked")) << calls();
}

TEST_F(GpuClocks, EnergyIsMeasuredFromTheOpen) {
  auto dev = open();
  ASSERT_TRUE(dev);
  const DeviceEnergy e = dev->energy();
  EXPECT_TRUE(e.measured);
  EXPECT_GT(e.joules, 0);       // the fake counter advances at each reading
  EXPECT_LT(e.joules, 5000.0);  // counted from the open, not the counter's start
}

}  // namespace
