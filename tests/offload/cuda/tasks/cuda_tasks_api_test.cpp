// The CUDA task API around the tasks, on the fake driver and the fake NVML
// (tests/offload/cuda/nvml/fake_nvml): the C functions of joule/cuda.h and
// Nanos6's nanos6_get_current_cuda_stream inside and outside a task body,
// JOULE_CUDA=required, and the SM clocks: listed, locked, refused with the
// allowed values or NVML's reason, and restored when the runtime stops.
#include <joule/cuda.h>
#include <joule/nanos6/nanos6.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cuda_tasks_common.hpp"
#include "nvml_clock_record.hpp"
#include "temp_dir.hpp"

namespace {

using namespace cuda_tasks;

constexpr const char* kFakeBus = "0000:10:00.0";  // the fake driver's GPU 0

TEST(CudaTasksCApi, InsideABodyTheStreamMapAndDeviceOutsideNothing) {
  auto rt = fake_gpu_runtime(2);
  EXPECT_EQ(joule_cuda_device_count(), 1);
  EXPECT_EQ(joule_cuda_current_stream(), nullptr);
  EXPECT_EQ(nanos6_get_current_cuda_stream(), nullptr);
  EXPECT_EQ(joule_cuda_current_device(), -1);
  std::vector<double> v(kN, 1.0);
  double* p = v.data();
  bool same_stream = false, same_map = false, outside_region = true;
  int device = -2;
  joule::spawn(
      {joule::inout(p, kN)},
      [&, p](joule::cuda_context& c) {
        same_stream = joule_cuda_current_stream() == c.stream() &&
                      nanos6_get_current_cuda_stream() == c.stream() && c.stream() != nullptr;
        same_map = joule_cuda_current_map(p + 5) == c.map(p + 5);
        outside_region = joule_cuda_current_map(&device) == nullptr;
        device = joule_cuda_current_device();
      },
      on_gpu());
  joule::taskwait();
  EXPECT_TRUE(same_stream);
  EXPECT_TRUE(same_map);
  EXPECT_TRUE(outside_region);
  EXPECT_EQ(device, 0);
}

TEST(CudaTasksRequired, TheRuntimeDoesNotStartWithoutAGpu) {
  const std::pair<std::string, std::string> s[] = {
      {"JOULE_CUDA", "required"}, {"JOULE_CUDA_DRIVER", "/nonexistent/libcuda-required.so.1"}};
  try {
    joule::detail::runtime_start(s, 2);
    joule::detail::runtime_stop();
    FAIL() << "the runtime started";
  } catch (const joule::error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("JOULE_CUDA=required but no CUDA GPU: "), std::string::npos) << what;
    EXPECT_NE(what.find("libcuda-required.so.1"), std::string::npos) << what;
  }
  const std::pair<std::string, std::string> ok[] = {{"JOULE_CUDA", "required"},
                                                    {"JOULE_CUDA_DRIVER", JOULE_FAKE_CUDA_DRIVER}};
  joule::detail::runtime_start(ok, 2);  // with a GPU it starts
  EXPECT_EQ(joule_cuda_device_count(), 1);
  joule::detail::runtime_stop();
}

// The fake NVML answers for the fake driver's GPU and logs each clock call.
class CudaTasksClocks : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("FAKE_NVML_GPUS", kFakeBus, 1);
    ::setenv("FAKE_NVML_LOG", log_path().c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("FAKE_NVML_GPUS");
    ::unsetenv("FAKE_NVML_LOG");
    ::unsetenv("FAKE_NVML_PERMISSION");
  }
  void start(std::vector<std::pair<std::string, std::string>> s = {}) {
    s.emplace_back("JOULE_CUDA_DRIVER", JOULE_FAKE_CUDA_DRIVER);
    s.emplace_back("JOULE_NVML_LIBRARY", JOULE_FAKE_NVML);
    s.emplace_back("JOULE_WORKERS", "2");
    s.emplace_back("JOULE_STATE_DIR", state_dir());  // the clock records, not /run/joule
    joule::detail::runtime_start(s.data(), s.size());
  }
  std::string state_dir() const { return dir_.path() + "/state"; }
  std::string log_path() const { return dir_.path() + "/nvml.log"; }
  std::string log() const {
    std::ifstream in(log_path());
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  static int clock_now() { return joule::cuda_devices().at(0).sm_clock_mhz; }

  joule_test::TempDir dir_;
};

TEST_F(CudaTasksClocks, ListedLockedAndRestoredAtStop) {
  start();
  EXPECT_EQ(joule::cuda_sm_clocks(0), (std::vector<int>{1980, 1755, 1410, 1005, 600}));
  const int before = clock_now();
  joule::set_cuda_sm_clock(0, 1005);
  EXPECT_EQ(clock_now(), 1005);
  EXPECT_TRUE(joule::cuda_devices().at(0).energy_measured);
  joule::detail::runtime_stop();
  EXPECT_NE(log().find("reset_locked " + std::string(kFakeBus)), std::string::npos) << log();
  start();  // the same GPU, kept: back at its clock
  EXPECT_EQ(clock_now(), before);
  joule::detail::runtime_stop();
}

TEST_F(CudaTasksClocks, TheSettingLocksAtEachStartAndEachStopRestores) {
  start({{"JOULE_CUDA_SM_CLOCK", "1410"}});
  EXPECT_EQ(clock_now(), 1410);
  joule::detail::runtime_stop();
  const std::string first = log();
  EXPECT_NE(first.find("set_locked " + std::string(kFakeBus) + " 1410 1410"), std::string::npos)
      << first;
  EXPECT_NE(first.find("reset_locked " + std::string(kFakeBus)), std::string::npos) << first;
  start({{"JOULE_CUDA_SM_CLOCK", "1410"}});
  EXPECT_EQ(clock_now(), 1410);
  joule::detail::runtime_stop();
}

TEST_F(CudaTasksClocks, RefusalsSayWhy) {
  start();
  try {
    joule::set_cuda_sm_clock(0, 1234);
    FAIL() << "1234 MHz was accepted";
  } catch (const joule::error& e) {
    EXPECT_NE(std::string(e.what()).find("(allowed: 1980, 1755, 1410, 1005, 600)"),
              std::string::npos)
        << e.what();
  }
  try {
    joule::cuda_sm_clocks(3);
    FAIL() << "GPU 3 was accepted";
  } catch (const joule::error& e) {
    EXPECT_NE(std::string(e.what()).find("no GPU 3 (allowed device_num: 0)"), std::string::npos)
        << e.what();
  }
  ::setenv("FAKE_NVML_PERMISSION", "deny", 1);
  try {
    joule::set_cuda_sm_clock(0, 1005);
    FAIL() << "the refused change was reported as done";
  } catch (const joule::error& e) {
    EXPECT_NE(std::string(e.what()).find("set_cuda_sm_clock(0, 1005): "), std::string::npos)
        << e.what();
  }
  joule::detail::runtime_stop();
}

// A run killed while it held a GPU's clocks leaves its record; the next run
// resets them when it opens that GPU, before anything else, and removes the
// record. A GPU this process does not use is not its business.
TEST_F(CudaTasksClocks, TheNextRunResetsTheClocksADeadRunLeftLocked) {
  using joule::cuda::nvml::ClockRecord;
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ::waitpid(dead, nullptr, 0);
  ClockRecord gone{dead, 1, kFakeBus, true};
  ClockRecord other{dead, 1, "0000:AF:00.0", true};  // a GPU this process does not use
  std::string error;
  for (const ClockRecord& r : {gone, other})
    ASSERT_TRUE(joule::cuda::nvml::write_clock_record(state_dir(), r, &error)) << error;
  ::setenv("FAKE_NVML_GPUS", (std::string(kFakeBus) + ",0000:AF:00.0").c_str(), 1);
  start({{"JOULE_CUDA_STREAMS", "3"}});  // other settings than the tests before: opened anew
  EXPECT_EQ(log(), "") << "nothing before the GPU is opened";
  EXPECT_EQ(joule_cuda_device_count(), 1);
  EXPECT_EQ(log(), "reset_locked " + std::string(kFakeBus) + "\n");
  const auto name = [&](const ClockRecord& r) {
    return state_dir() + "/" + joule::cuda::nvml::clock_record_name(r.pid, r.bus_id);
  };
  EXPECT_FALSE(std::filesystem::exists(name(gone)));
  EXPECT_TRUE(std::filesystem::exists(name(other)));  // left to that GPU's users
  joule::detail::runtime_stop();
}

}  // namespace
