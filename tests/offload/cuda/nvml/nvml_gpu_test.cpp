// The NVML meter on a real GPU (label cuda): skipped where the driver shows
// none. Readings are plausible, the clocks are listed, and a clock change is
// either made and undone or refused with the call and the reason.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>

#include "cuda_device.hpp"
#include "gpu_meter.hpp"
#include "temp_dir.hpp"

namespace {

using namespace joule::cuda;
using namespace joule::offload;

class NvmlGpu : public testing::Test {
 protected:
  void SetUp() override {
    settings_.state_dir = tmp_.file("state");
    probe_ = probe_cuda(settings_);
    if (probe_.devices.empty()) GTEST_SKIP() << "no CUDA device: " << probe_.why_none;
  }
  joule_test::TempDir tmp_{"nvml-gpu"};
  CudaSettings settings_;
  CudaProbe probe_;
};

TEST_F(NvmlGpu, ReadsEveryGpu) {
  for (const auto& d : probe_.devices) {
    auto m = open_gpu_meter(settings_, d.pci_bus_id);
    ASSERT_EQ(m->source(), "nvml") << d.pci_bus_id;
    double w = 0, e1 = 0, e2 = 0;
    ASSERT_TRUE(m->power_watts(&w));
    EXPECT_GT(w, 1.0);
    EXPECT_LT(w, 2000.0);
    if (m->energy_joules(&e1)) {  // Volta and later
      ASSERT_TRUE(m->energy_joules(&e2));
      EXPECT_GE(e2, e1);
      EXPECT_GT(e1, 0.0);
    }
    const auto clocks = m->sm_clocks_mhz();
    ASSERT_FALSE(clocks.empty());
    EXPECT_TRUE(std::is_sorted(clocks.rbegin(), clocks.rend()));
    EXPECT_GT(m->sm_clock_mhz(), 0);
    EXPECT_LE(m->sm_clock_mhz(), clocks.front() + 100);  // boost bins above the table
  }
}

TEST_F(NvmlGpu, AClockChangeIsUndoneOrRefusedWithTheReason) {
  auto m = open_gpu_meter(settings_, probe_.devices.front().pci_bus_id);
  const auto clocks = m->sm_clocks_mhz();
  ASSERT_FALSE(clocks.empty()) << m->source();
  const auto r = m->set_sm_clock_mhz(clocks[clocks.size() / 2]);
  if (!r.ok) {
    EXPECT_NE(r.message.find("nvmlDeviceSetGpuLockedClocks("), std::string::npos) << r.message;
    EXPECT_TRUE(tmp_.files("").size() <= 1);  // the state folder, empty
    GTEST_SKIP() << "the driver refused (as expected without root): " << r.message;
  }
  m->restore();
  m->restore();
  const auto again = m->set_sm_clock_mhz(clocks.front());
  EXPECT_TRUE(again.ok) << again.message;
  m->restore();
}

}  // namespace
