// The driver backend on a real GPU: the probe, then launches whose bodies
// run a real kernel (cuda_device_gpu_kernel.cu) on the launch's stream in
// the primary context joule made current, with the data copied in, kept
// resident and copied back. Skips where no GPU or driver is found.
#include <gtest/gtest.h>

#include <vector>

#include "cuda_device.hpp"

const char* launch_saxpy(void* stream, int n, float a, const float* x, float* y);

namespace {

using namespace joule::cuda;
using namespace joule::offload;

struct Saxpy {
  int n;
  float a;
  const float* x;
  float* y;
  const char* error = nullptr;
};

void saxpy_body(void* p, void* c) {
  auto& s = *static_cast<Saxpy*>(p);
  auto& ctx = *static_cast<CudaKernelContext*>(c);
  s.error = launch_saxpy(ctx.stream(), s.n, s.a, static_cast<const float*>(ctx.map(s.x)),
                         static_cast<float*>(ctx.map(s.y)));
}

TEST(CudaDeviceGpu, ASaxpyKernelOnTheLaunchStream) {
  CudaSettings settings;
  const CudaProbe p = probe_cuda(settings);
  if (p.devices.empty()) GTEST_SKIP() << "no CUDA device: " << p.why_none;
  EXPECT_GT(p.driver_version, 0);
  EXPECT_FALSE(p.devices[0].name.empty());
  EXPECT_EQ(p.devices[0].pci_bus_id.size(), 12u) << p.devices[0].pci_bus_id;
  EXPECT_GT(p.devices[0].sm_count, 0);
  std::string why;
  auto devices = open_cuda_devices(settings, &why);
  ASSERT_FALSE(devices.empty()) << why;
  Device& d = *devices[0];
  const int n = 1 << 20;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[std::size_t(i)] = float(i % 1000);
    y[std::size_t(i)] = 1.0f;
  }
  const std::size_t bytes = std::size_t(n) * sizeof(float);
  Saxpy s{n, 2.0f, x.data(), y.data()};
  Launch l;
  l.fn = saxpy_body;
  l.args = &s;
  l.regions = {{x.data(), bytes, kIn, true, false}, {y.data(), bytes, kInout, true, false}};
  Ticket t = d.launch(l);
  while (!t.done()) d.poll_completions();
  t.wait();
  ASSERT_EQ(s.error, nullptr) << s.error;
  // Again on the resident copies (no copy in), then back to the host.
  l.regions = {{x.data(), bytes, kIn, false, false}, {y.data(), bytes, kInout, false, true}};
  t = d.launch(l);
  while (!t.done()) d.poll_completions();
  t.wait();
  ASSERT_EQ(s.error, nullptr) << s.error;
  for (int i = 0; i < n; i += 997)
    ASSERT_FLOAT_EQ(y[std::size_t(i)], 1.0f + 4.0f * float(i % 1000)) << i;
  EXPECT_EQ(d.energy().bytes_to_card, 2 * bytes);
  EXPECT_EQ(d.energy().bytes_to_host, bytes);
  d.release(x.data(), bytes);
  d.release(y.data(), bytes);
}

}  // namespace
