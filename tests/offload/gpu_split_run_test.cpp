// The work splitter with a GPU end to end on the fake CUDA driver
// (tests/offload/cuda/fake_driver: device memory is host memory, each stream
// a thread): split_iteration runs the CPUs' part as a taskloop and the GPU's
// as a CUDA task whose "kernel" is a host function on the task's stream
// (CudaKernelContext::host_fn), so results are checked and the share moves
// toward whichever side is given less work per element. The energy source
// with and without the fake NVML. Worker counts 1, 2, 4 and 8.
#include <gtest/gtest.h>
#include <joule/cuda.hpp>
#include <joule/split.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "cuda_device.hpp"
#include "temp_dir.hpp"

namespace {

#ifndef JOULE_FAKE_NVML_LIBRARY
#define JOULE_FAKE_NVML_LIBRARY ""
#endif

const char* const kNoNvml = "/nonexistent/libnvidia-ml.so.1";

// Clock state files (the GPU registry records what it changes) go here.
const joule_test::TempDir& state_dir() {
  static const joule_test::TempDir dir("gpu-split");
  return dir;
}

joule::runtime fake_runtime(int workers, const char* nvml = kNoNvml) {
  ::setenv("FAKE_NVML_GPUS", "0000:10:00.0", 1);  // the fake driver's GPU 0
  return joule::runtime{{"JOULE_WORKERS", std::to_string(workers)},
                        {"JOULE_CUDA_DRIVER", JOULE_FAKE_CUDA_DRIVER},
                        {"JOULE_NVML_LIBRARY", nvml},
                        {"JOULE_METER", "model"},
                        {"JOULE_STATE_DIR", state_dir().path()}};
}

// y = 2x over n elements, `rounds` times the work per element (same result).
void twice(const double* x, double* y, std::int64_t n, int rounds) {
  for (std::int64_t i = 0; i < n; ++i) {
    double v = 0;
    for (int k = 0; k < rounds; ++k) v = v * 0.5 + x[i];
    y[i] = 2 * x[i] + (v - v);
  }
}

struct GpuPart {
  const double* x;
  double* y;
  std::int64_t n;
  int rounds;
};

// The GPU's part: twice() on the GPU copies, in stream order.
void on_gpu(joule::cuda_context& c, const double* x, double* y, std::int64_t n, int rounds) {
  auto* part = new GpuPart{c.map(x), c.map(y), n, rounds};
  joule::cuda::current_cuda_context()->host_fn(
      [](void* p) {
        auto* g = static_cast<GpuPart*>(p);
        twice(g->x, g->y, g->n, g->rounds);
        delete g;
      },
      part);
}

// `iters` iterations of y = 2x, checked after each; the GPU's share after.
double run(joule::work_splitter& s, int iters, int host_rounds, int gpu_rounds) {
  const std::int64_t n = 20000;
  std::vector<double> xv(static_cast<std::size_t>(n)), yv(static_cast<std::size_t>(n));
  double *x = xv.data(), *y = yv.data();
  for (int it = 0; it < iters; ++it) {
    for (std::int64_t i = 0; i < n; ++i) xv[std::size_t(i)] = double(i + it);
    joule::split_iteration(
        s, n, 1000,
        [=](std::int64_t lo, std::int64_t hi) { twice(x + lo, y + lo, hi - lo, host_rounds); },
        [=](joule::cuda_context& c, std::int64_t lo, std::int64_t hi) {
          on_gpu(c, x + lo, y + lo, hi - lo, gpu_rounds);
        },
        [=](std::int64_t lo, std::int64_t hi) {
          return std::vector<joule::dep>{joule::in(x + lo, std::size_t(hi - lo)),
                                         joule::out(y + lo, std::size_t(hi - lo))};
        });
    for (std::int64_t i = 0; i < n; ++i) {
      if (yv[std::size_t(i)] != 2.0 * double(i + it)) {
        ADD_FAILURE() << "iteration " << it << " i " << i << " cut " << s.cut(n);
        return -1;
      }
    }
  }
  return s.card_share();
}

bool have_gpu(std::string* why) { return !joule::cuda_devices(why).empty(); }

TEST(GpuSplitRun, ResultsAreRightAtEveryWorkerCount) {
  for (int workers : {1, 2, 4, 8}) {
    auto rt = fake_runtime(workers);
    std::string why;
    if (!have_gpu(&why)) GTEST_SKIP() << "no CUDA device: " << why;
    joule::work_splitter s({.objective = "time", .device = joule::device::cuda});
    EXPECT_GE(run(s, 6, 1, 1), 0) << workers << " workers";
    EXPECT_EQ(s.totals().iterations, 6);
  }
}

TEST(GpuSplitRun, TheShareMovesTowardTheDeviceWithLessWork) {
  for (int workers : {1, 2, 4, 8}) {
    auto rt = fake_runtime(workers);
    std::string why;
    if (!have_gpu(&why)) GTEST_SKIP() << "no CUDA device: " << why;
    // From half each: 400 times the work per element on one side.
    joule::work_splitter slow_gpu({.objective = "time", .device = joule::device::cuda});
    EXPECT_LT(run(slow_gpu, 25, 1, 400), 0.4) << workers << " workers";
    joule::work_splitter slow_host({.objective = "time", .device = joule::device::cuda});
    EXPECT_GT(run(slow_host, 25, 400, 1), 0.6) << workers << " workers";
  }
}

TEST(GpuSplitRun, FixedSharesAreBaselines) {
  auto rt = fake_runtime(2);
  std::string why;
  if (!have_gpu(&why)) GTEST_SKIP() << "no CUDA device: " << why;
  for (double share : {0.0, 1.0}) {
    joule::work_splitter s({.device = joule::device::cuda, .share = share});
    EXPECT_EQ(run(s, 4, 1, 50), share);
  }
}

TEST(GpuSplitRun, TheEnergySourceSaysWhetherNvmlMeasures) {
  {
    auto rt = fake_runtime(2);
    std::string why;
    if (!have_gpu(&why)) GTEST_SKIP() << "no CUDA device: " << why;
    joule::work_splitter s({.device = joule::device::cuda});
    EXPECT_EQ(s.energy_source().rfind("gpu: model (none: ", 0), 0u) << s.energy_source();
    EXPECT_EQ(s.clocks().find("clocks fixed ("), s.clocks().find(", ") + 2) << s.clocks();
  }
  if (std::string(JOULE_FAKE_NVML_LIBRARY).empty()) GTEST_SKIP() << "no fake NVML in this build";
  auto rt = fake_runtime(2, JOULE_FAKE_NVML_LIBRARY);
  joule::work_splitter s({.device = joule::device::cuda});
  EXPECT_EQ(s.energy_source(), "gpu: nvml, cpu: model");
  run(s, 4, 1, 50);
  EXPECT_TRUE(s.totals().device_measured);
  EXPECT_GT(s.totals().device_joules, 0);
}

TEST(GpuSplitRun, SmClocksAreChosenOnlyWhereNvmlAllows) {
  if (std::string(JOULE_FAKE_NVML_LIBRARY).empty()) GTEST_SKIP() << "no fake NVML in this build";
  auto rt = fake_runtime(2, JOULE_FAKE_NVML_LIBRARY);
  std::string why;
  if (!have_gpu(&why)) GTEST_SKIP() << "no CUDA device: " << why;
  ::setenv("FAKE_NVML_PERMISSION", "deny", 1);
  {
    joule::work_splitter s({.card_freq = "auto", .device = joule::device::cuda});
    const std::string c = s.clocks();
    EXPECT_NE(c.find("clocks fixed ("), std::string::npos) << c;
    EXPECT_NE(c.find("ermission"), std::string::npos) << c;
  }
  ::unsetenv("FAKE_NVML_PERMISSION");
  joule::work_splitter s({.card_freq = "auto", .device = joule::device::cuda});
  EXPECT_NE(s.clocks().find(", chosen by the splitter among "), std::string::npos) << s.clocks();
  EXPECT_FALSE(s.card_freq_settled());
}

}  // namespace
