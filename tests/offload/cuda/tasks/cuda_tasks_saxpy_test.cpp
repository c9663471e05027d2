// CUDA tasks on a real GPU (label cuda; skipped without one): saxpy over
// tiles, each tile's GPU tasks and host tasks interleaved through their
// dependencies, the kernel launched on the task's stream, the result
// checked on the host against the same arithmetic. The kernel is in
// cuda_tasks_saxpy_kernel.cu.
#include <gtest/gtest.h>
#include <joule/cuda.hpp>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda_tasks_saxpy_kernel.hpp"

namespace {

constexpr std::int64_t kTile = 1 << 16;
constexpr int kTiles = 16;

void gpu_saxpy(const float* x, float* y, float a, std::atomic<int>& launch_errors) {
  joule::spawn(
      {joule::in(x, kTile), joule::inout(y, kTile)},
      [=, &launch_errors](joule::cuda_context& c) {
        if (!launch_saxpy(c.stream(), kTile, a, c.map(x), c.map(y))) launch_errors.fetch_add(1);
      },
      joule::device_options{.device = joule::device::cuda});
}

class CudaTasksSaxpy : public ::testing::TestWithParam<int> {};

TEST_P(CudaTasksSaxpy, TilesOnTheGpuAndTheHostInterleaved) {
  joule::runtime rt{{"JOULE_WORKERS", std::to_string(GetParam())}};
  std::string why;
  if (joule::cuda_devices(&why).empty()) GTEST_SKIP() << "no CUDA device: " << why;
  std::vector<float> x(kTiles * kTile), y(kTiles * kTile);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = float(i % 1000) * 0.5f;
    y[i] = float(i % 7);
  }
  std::vector<float> want = y;
  for (std::size_t i = 0; i < x.size(); ++i)
    want[i] = 3.0f * x[i] + ((2.0f * x[i] + want[i]) + 1.0f);
  std::atomic<int> launch_errors{0};
  for (int t = 0; t < kTiles; ++t) {
    const float* xt = x.data() + t * kTile;
    float* yt = y.data() + t * kTile;
    gpu_saxpy(xt, yt, 2.0f, launch_errors);
    joule::spawn({joule::inout(yt, kTile)}, [yt] {  // the GPU's result, copied back first
      for (std::int64_t i = 0; i < kTile; ++i) yt[i] += 1.0f;
    });
    gpu_saxpy(xt, yt, 3.0f, launch_errors);  // the host's write, copied in
  }
  joule::taskwait();
  EXPECT_EQ(launch_errors.load(), 0);
  for (std::size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], want[i]) << "element " << i;
  const auto after = joule::cuda_devices();
  ASSERT_FALSE(after.empty());
  EXPECT_GE(after[0].launches, std::uint64_t(2 * kTiles));
}

INSTANTIATE_TEST_SUITE_P(Workers, CudaTasksSaxpy, ::testing::Values(1, 2, 4, 8),
                         [](const ::testing::TestParamInfo<int>& p) {
                           return "w" + std::to_string(p.param);
                         });

}  // namespace
