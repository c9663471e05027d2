// probe_cuda and open_cuda_devices against the fake driver: what the driver
// shows (1 and 2 GPUs), why there is none (no library, no device, off), the
// device's description, and a device that closes leaves nothing behind.
#include <gtest/gtest.h>

#include "cuda_device.hpp"
#include "cuda_fake_support.hpp"
#include "joule/types.hpp"

namespace {

using namespace joule::cuda;
using namespace joule::offload;
using Probe = fake::FakeEnv;

TEST_F(Probe, OneDevice) {
  const CudaProbe p = probe_cuda(fake::settings());
  ASSERT_EQ(p.devices.size(), 1u) << p.why_none;
  EXPECT_EQ(p.why_none, "");
  EXPECT_EQ(p.driver_version, 13000);
  const CudaDeviceInfo& d = p.devices[0];
  EXPECT_EQ(d.index, 0);
  EXPECT_EQ(d.name, "Fake CUDA GPU 0");
  EXPECT_EQ(d.pci_bus_id, "0000:10:00.0");
  EXPECT_EQ(d.total_bytes, std::size_t(16) << 30);
  EXPECT_EQ(d.sm_count, 8);
  EXPECT_EQ(d.cc_major, 9);
  EXPECT_EQ(d.cc_minor, 0);
  EXPECT_EQ(d.sm_clock_mhz_max, 1980);
  ASSERT_TRUE(d.has_uuid);
  EXPECT_EQ(d.uuid[0], 0);
  EXPECT_EQ(d.uuid[15], 15);
}

TEST_F(Probe, TwoDevices) {
  setenv("FAKE_CUDA_DEVICES", "2", 1);
  const CudaProbe p = probe_cuda(fake::settings());
  ASSERT_EQ(p.devices.size(), 2u) << p.why_none;
  EXPECT_EQ(p.devices[1].index, 1);
  EXPECT_EQ(p.devices[1].name, "Fake CUDA GPU 1");
  EXPECT_EQ(p.devices[1].pci_bus_id, "0000:11:00.0");
  EXPECT_EQ(p.devices[1].sm_count, 16);
  std::string why;
  const auto devices = open_cuda_devices(fake::settings(), &why);
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[1]->describe(), "cuda:1 Fake CUDA GPU 1 (sm_90, 16 SMs, 16.0 GiB)");
}

TEST_F(Probe, MissingLibrary) {
  CudaSettings s = fake::settings();
  s.driver = "/nonexistent/libcuda.so.1";
  const CudaProbe p = probe_cuda(s);
  EXPECT_TRUE(p.devices.empty());
  EXPECT_EQ(p.why_none.rfind("no CUDA driver: ", 0), 0u) << p.why_none;
  EXPECT_NE(p.why_none.find("/nonexistent/libcuda.so.1"), std::string::npos) << p.why_none;
  std::string why;
  EXPECT_TRUE(open_cuda_devices(s, &why).empty());
  EXPECT_EQ(why, p.why_none);
}

TEST_F(Probe, LibraryWithoutTheDriversEntryPoints) {
  CudaSettings s = fake::settings();
  s.driver = "libm.so.6";  // loads, but is no CUDA driver
  const CudaProbe p = probe_cuda(s);
  EXPECT_TRUE(p.devices.empty());
  EXPECT_EQ(p.why_none, "no CUDA driver: libm.so.6 has no cuGetErrorName (driver too old?)");
}

TEST_F(Probe, NoDevice) {
  setenv("FAKE_CUDA_DEVICES", "0", 1);
  const CudaProbe p = probe_cuda(fake::settings());
  EXPECT_TRUE(p.devices.empty());
  EXPECT_EQ(p.why_none, "cuInit: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)");
}

TEST_F(Probe, Off) {
  CudaSettings s = fake::settings();
  s.mode = CudaMode::off;
  EXPECT_EQ(probe_cuda(s).why_none, "JOULE_CUDA=off");
  std::string why;
  EXPECT_TRUE(open_cuda_devices(s, &why).empty());
  EXPECT_EQ(why, "JOULE_CUDA=off");
  EXPECT_EQ(fake::count("ctx_retain"), fake::count("ctx_release"));
}

TEST_F(Probe, DescribesTheGpuAndClosesCleanly) {
  const long streams = fake::count("streams");
  {
    std::string why;
    auto devices = open_cuda_devices(fake::settings(3), &why);
    ASSERT_EQ(devices.size(), 1u) << why;
    EXPECT_EQ(devices[0]->describe(), "cuda:0 Fake CUDA GPU 0 (sm_90, 8 SMs, 16.0 GiB)");
    EXPECT_EQ(fake::count("streams"), streams + 3);
    EXPECT_GT(fake::count("ctx_retain"), fake::count("ctx_release"));
    std::vector<int> data(64, 1);
    devices[0]->copy_in(data.data(), data.size() * sizeof(int));
    EXPECT_EQ(fake::count("live_blocks"), 1);
    EXPECT_EQ(fake::count("registered"), 1);
  }
  EXPECT_EQ(fake::count("streams"), streams);
  EXPECT_EQ(fake::count("live_blocks"), 0);
  EXPECT_EQ(fake::count("registered"), 0);
  EXPECT_EQ(fake::count("ctx_retain"), fake::count("ctx_release"));
}

TEST_F(Probe, EnergyWithoutAMeterIsNotMeasured) {
  std::string why;
  auto devices = open_cuda_devices(fake::settings(), &why);
  ASSERT_EQ(devices.size(), 1u) << why;
  const DeviceEnergy e = devices[0]->energy();
  EXPECT_FALSE(e.measured);
  EXPECT_EQ(e.joules, 0);
  EXPECT_EQ(e.launches, 0u);
  EXPECT_GE(e.seconds, 0);
  EXPECT_TRUE(devices[0]->frequencies().empty());
  EXPECT_THROW(devices[0]->set_frequency(1.5), joule::error);
}

}  // namespace
