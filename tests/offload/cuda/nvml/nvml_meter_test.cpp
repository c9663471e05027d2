// The GPU meter through NVML (runtime/offload/cuda/nvml_meter.cpp) against
// the fake NVML: readings, clock changes and their restore, refusals.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "gpu_meter.hpp"
#include "nvml_fixture.hpp"

namespace {

using joule::cuda::open_gpu_meter;
using joule_test::kBus;
using NvmlMeter = joule_test::NvmlFixture;

TEST_F(NvmlMeter, ReadsEnergyPowerAndClocks) {
  auto m = open_gpu_meter(settings_, kBus);
  ASSERT_EQ(m->source(), "nvml");
  double e1 = 0, e2 = 0, w = 0;
  ASSERT_TRUE(m->energy_joules(&e1));
  ASSERT_TRUE(m->energy_joules(&e2));
  EXPECT_GT(e1, 5000.0);  // the counter is in mJ: 5,000,250 mJ
  EXPECT_LT(e1, 5001.0);
  EXPECT_DOUBLE_EQ(e2 - e1, 0.25);
  ASSERT_TRUE(m->power_watts(&w));
  EXPECT_DOUBLE_EQ(w, 123.456);
  EXPECT_EQ(m->sm_clocks_mhz(), (std::vector<int>{1980, 1755, 1410, 1005, 600}));
  EXPECT_EQ(m->sm_clock_mhz(), 1755);
}

TEST_F(NvmlMeter, UnsupportedEnergyIsNotReadable) {
  ::setenv("FAKE_NVML_ENERGY", "unsupported", 1);
  auto m = open_gpu_meter(settings_, kBus);
  double e = -1;
  EXPECT_FALSE(m->energy_joules(&e));
  EXPECT_EQ(e, -1);
}

TEST_F(NvmlMeter, LocksTheClockAndRestoresIt) {
  auto m = open_gpu_meter(settings_, kBus);
  const auto r = m->set_sm_clock_mhz(1410);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(m->sm_clock_mhz(), 1410);
  ASSERT_EQ(state_files(), 1u);  // the record, for `joule-ctl restore`
  struct stat st {};
  for (const auto& e : std::filesystem::directory_iterator(state_dir())) {
    ASSERT_EQ(::lstat(e.path().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
  }
  m->restore();
  EXPECT_EQ(calls(), "set_locked 0000:3B:00.0 1410 1410\nreset_locked 0000:3B:00.0\n");
  EXPECT_EQ(m->sm_clock_mhz(), 1755);
  EXPECT_EQ(state_files(), 0u);
  m->restore();  // idempotent
  m.reset();     // and the destructor has nothing left to do
  EXPECT_EQ(calls(), "set_locked 0000:3B:00.0 1410 1410\nreset_locked 0000:3B:00.0\n");
}

TEST_F(NvmlMeter, FallsBackToApplicationClocksAndSetsTheOldOnesBack) {
  ::setenv("FAKE_NVML_PERMISSION", "applications", 1);
  auto m = open_gpu_meter(settings_, kBus);
  ASSERT_TRUE(m->set_sm_clock_mhz(1005).ok);
  ASSERT_TRUE(m->set_sm_clock_mhz(1410).ok);  // the values before stay the first ones
  EXPECT_EQ(m->sm_clock_mhz(), 1410);
  m->restore();
  EXPECT_EQ(calls(),
            "set_applications 0000:3B:00.0 2619 1005\n"
            "set_applications 0000:3B:00.0 2619 1410\n"
            "set_applications 0000:3B:00.0 2619 1755\n");
  EXPECT_EQ(state_files(), 0u);
}

TEST_F(NvmlMeter, DestructorRestores) {
  open_gpu_meter(settings_, kBus)->set_sm_clock_mhz(600);
  EXPECT_EQ(calls(), "set_locked 0000:3B:00.0 600 600\nreset_locked 0000:3B:00.0\n");
}

TEST_F(NvmlMeter, RefusalSaysWhichCallAndWhatWouldAllowIt) {
  ::setenv("FAKE_NVML_PERMISSION", "deny", 1);
  auto m = open_gpu_meter(settings_, kBus);
  const auto r = m->set_sm_clock_mhz(1410);
  EXPECT_FALSE(r.ok);
  for (const char* part : {"nvmlDeviceSetGpuLockedClocks(1410, 1410): Insufficient Permissions",
                           "nvmlDeviceSetApplicationsClocks(2619, 1410)",
                           "needs root or `nvidia-smi -acp UNRESTRICTED`", kBus})
    EXPECT_NE(r.message.find(part), std::string::npos) << part << " in: " << r.message;
  m->restore();
  EXPECT_EQ(calls(), "");
  EXPECT_EQ(state_files(), 0u);
}

TEST_F(NvmlMeter, UnsupportedClockListsTheAllowedOnes) {
  auto m = open_gpu_meter(settings_, kBus);
  const auto r = m->set_sm_clock_mhz(1234);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("1234 MHz is not a supported SM clock"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("allowed: 1980, 1755, 1410, 1005, 600"), std::string::npos) << r.message;
  EXPECT_EQ(calls(), "");
}

TEST_F(NvmlMeter, WithoutTheLibrarySourceSaysWhy) {
  settings_.nvml = "libjoule-no-such-nvml.so.1";
  auto m = open_gpu_meter(settings_, kBus);
  EXPECT_EQ(m->source().rfind("none: dlopen libjoule-no-such-nvml.so.1", 0), 0u) << m->source();
  double x = 0;
  EXPECT_FALSE(m->energy_joules(&x));
  EXPECT_FALSE(m->power_watts(&x));
  EXPECT_TRUE(m->sm_clocks_mhz().empty());
  EXPECT_FALSE(m->set_sm_clock_mhz(1410).ok);
  m->restore();
}

TEST_F(NvmlMeter, AnUnknownGpuOrAFailedInitSaysWhy) {
  EXPECT_EQ(open_gpu_meter(settings_, "0000:01:00.0")->source(),
            "none: nvmlDeviceGetHandleByPciBusId_v2(0000:01:00.0): Not Found");
  // Another path: NVML is initialised once per library.
  const std::string copy = tmp_.file("libnvidia-ml-failing.so");
  std::filesystem::copy_file(FAKE_NVML_LIBRARY, copy);
  ::setenv("FAKE_NVML_INIT", "fail", 1);
  settings_.nvml = copy;
  EXPECT_EQ(open_gpu_meter(settings_, kBus)->source(), "none: nvmlInit_v2: Driver Not Loaded");
}

TEST_F(NvmlMeter, TwoGpusAreMeteredApart) {
  auto a = open_gpu_meter(settings_, kBus);
  auto b = open_gpu_meter(settings_, "0000:af:00.0");
  ASSERT_TRUE(b->set_sm_clock_mhz(1980).ok);
  EXPECT_EQ(a->sm_clock_mhz(), 1755);
  EXPECT_EQ(b->sm_clock_mhz(), 1980);
  b->restore();
  EXPECT_EQ(calls(), "set_locked 0000:AF:00.0 1980 1980\nreset_locked 0000:AF:00.0\n");
}

// Threads changing and restoring one meter's clock at once (as GPU tasks'
// workers and the stop could): whatever the interleaving, one final
// restore leaves the default clock, no lock and no record.
class NvmlMeterThreads : public joule_test::NvmlFixture, public testing::WithParamInterface<int> {};

TEST_P(NvmlMeterThreads, ChangesAndRestoresFromManyThreadsLeaveNothingChanged) {
  auto m = open_gpu_meter(settings_, kBus);
  const std::vector<int> clocks = m->sm_clocks_mhz();
  std::vector<std::thread> threads;
  for (int t = 0; t < GetParam(); ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        EXPECT_TRUE(m->set_sm_clock_mhz(clocks[std::size_t(t + i) % clocks.size()]).ok);
        if (i % 3 == t % 3) m->restore();
      }
    });
  for (auto& t : threads) t.join();
  m->restore();
  EXPECT_EQ(m->sm_clock_mhz(), 1755);
  EXPECT_EQ(state_files(), 0u);
  const std::string log = calls();
  EXPECT_EQ(log.substr(log.rfind('\n', log.size() - 2) + 1), "reset_locked 0000:3B:00.0\n");
}

INSTANTIATE_TEST_SUITE_P(Threads, NvmlMeterThreads, testing::Values(1, 2, 4, 8));

}  // namespace
