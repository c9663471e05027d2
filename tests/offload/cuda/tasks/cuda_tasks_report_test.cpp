// What CUDA tasks leave in the end-of-run report (JOULE_REPORT=1, the
// "== cuda ==" section) and in traces (offload launch / copy events, the
// GPU's power, energy and SM clock tracks), on the fake driver and the fake
// NVML (tests/offload/cuda/nvml/fake_nvml).
#include <joule/joule.h>
#include <stdlib.h>

#include <string>
#include <utility>
#include <vector>

#include "cuda_tasks_common.hpp"
#include "event_test_util.hpp"

namespace {

using namespace cuda_tasks;
namespace tf = joule::trace_format;

void start(std::vector<std::pair<std::string, std::string>> s) {
  s.emplace_back("JOULE_CUDA_DRIVER", JOULE_FAKE_CUDA_DRIVER);
  s.emplace_back("JOULE_WORKERS", "2");
  joule::detail::runtime_start(s.data(), s.size());
}

TEST(CudaTasksReport, ShowsTheRunsTasksTransfersEnergyAndClock) {
  std::vector<double> v(kN, 1.0);
  start({{"JOULE_REPORT", "1"}});
  gpu_add(v.data(), 1.0);
  gpu_add(v.data(), 1.0);
  gpu_add(v.data(), 1.0);
  joule::taskwait();
  ::testing::internal::CaptureStderr();
  joule::detail::runtime_stop();
  const std::string out = ::testing::internal::GetCapturedStderr();
  for (double x : v) ASSERT_EQ(x, 4.0);
  const std::string bytes = std::to_string(kN * sizeof(double));
  EXPECT_NE(out.find("== cuda ==\n  GPU 0 ("), std::string::npos) << out;
  EXPECT_NE(out.find("): CUDA tasks 3, bytes to GPU " + bytes + ", to host " + bytes +
                     ", copies in 1, resident hits 2, copies back 1\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("    energy: "), std::string::npos) << out;
  EXPECT_NE(out.find(", SM clock: "), std::string::npos) << out;
}

TEST(CudaTasksReport, NoSectionWithoutCudaTasks) {
  start({{"JOULE_REPORT", "1"}, {"JOULE_CUDA", "off"}});
  joule::spawn([] {});
  ::testing::internal::CaptureStderr();
  joule::detail::runtime_stop();
  const std::string out = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(out.find("== joule report =="), std::string::npos) << out;
  EXPECT_EQ(out.find("== cuda =="), std::string::npos) << out;
}

// Each of n GPU tasks reads and writes its own region (copied in), and a
// host task after it reads it (copied back): n launches, n copies in, n
// copies back, each traced with its end (value 0).
TEST(CudaTasksTrace, LaunchesAndCopiesAreTracedInBothFormats) {
  constexpr int n = 6;
  for (const char* format : {"paraver", "chrome"}) {
    SCOPED_TRACE(format);
    trace_test::TempDir dir;
    std::vector<std::vector<double>> data(n, std::vector<double>(kN, 1.0));
    start({{"JOULE_TRACE", format}, {"JOULE_TRACE_DIR", dir.path()}});
    std::vector<double> seen(n, 0.0);  // one slot per reader: the readers run at once
    for (int i = 0; i < n; ++i) {
      double* d = data[std::size_t(i)].data();
      gpu_add(d, 1.0);
      joule::spawn({joule::in(d, kN)}, [d, out = &seen[std::size_t(i)]] { *out = d[0]; },
                   {.label = "reader"});
    }
    joule::taskwait();
    joule::detail::runtime_stop();
    for (double x : seen) EXPECT_EQ(x, 2.0);
    const trace_test::Events ev = trace_test::load_events(dir);
    EXPECT_EQ(ev.count(tf::kEvOffloadLaunch), 2 * n);
    EXPECT_EQ(ev.count(tf::kEvOffloadCopyIn), 2 * n);
    EXPECT_EQ(ev.count(tf::kEvOffloadCopyOut), 2 * n);
  }
}

// With NVML answering for the GPU, a traced run carries its power, energy
// and SM clock tracks: sampled by the polling service (at once, then every
// few milliseconds), the energy never decreasing.
TEST(CudaTasksTrace, GpuPowerEnergyAndClockAreSampled) {
  ::setenv("FAKE_NVML_GPUS", "0000:10:00.0", 1);  // the fake driver's GPU 0
  for (const char* format : {"paraver", "chrome"}) {
    SCOPED_TRACE(format);
    trace_test::TempDir dir;
    std::vector<double> v(kN, 1.0);
    start({{"JOULE_TRACE", format},
           {"JOULE_TRACE_DIR", dir.path()},
           {"JOULE_NVML_LIBRARY", JOULE_FAKE_NVML}});
    for (int i = 0; i < 20; ++i) gpu_add(v.data(), 1.0);
    joule::taskwait();
    joule::detail::runtime_stop();
    EXPECT_EQ(v[0], 21.0);
    const trace_test::Events ev = trace_test::load_events(dir);
    for (const char* track : {"gpu0_energy_j", "gpu0_sm_clock_mhz"}) {
      const auto it = ev.counters.find(track);
      ASSERT_NE(it, ev.counters.end()) << track;
      EXPECT_GE(it->second.size(), 1u) << track;
    }
    const std::vector<double>& joules = ev.counters.at("gpu0_energy_j");
    for (std::size_t i = 1; i < joules.size(); ++i) EXPECT_GE(joules[i], joules[i - 1]);
    for (double mhz : ev.counters.at("gpu0_sm_clock_mhz")) EXPECT_GT(mhz, 0.0);
    EXPECT_EQ(ev.counters.count("gpu1_energy_j"), 0u);  // one GPU
  }
  ::unsetenv("FAKE_NVML_GPUS");
}

}  // namespace
