// CUDA tasks on the engine with the fake driver (docs/offload.md, "CUDA
// tasks and their data"): completion by polling (no worker waits on the
// GPU), a failed launch failing its task, no GPU failing the spawn with the
// probe's reason, and a region on the card and a GPU at once refused.
#include <gtest/gtest.h>
#include <joule/offload.hpp>

#include <array>
#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <thread>
#include <vector>

#include "cuda_tasks_common.hpp"

namespace {

using namespace cuda_tasks;

class CudaTasksFlow : public ::testing::TestWithParam<int> {};

// 50 GPU tasks whose stream work waits for a flag that a host task sets,
// spawned by the last GPU task's body (so it exists only once every body
// has run): with one worker they all finish only if no worker waits on the
// GPU (the tasks complete when an idle worker or a task boundary polls them).
TEST_P(CudaTasksFlow, ManyTasksInFlightCompleteByPolling) {
  auto rt = fake_gpu_runtime(GetParam());
  constexpr int kTasks = 50;
  std::vector<std::array<double, 4>> out(kTasks);
  std::atomic<bool> go{false};
  std::atomic<int> bodies{0};
  Gpu0 g;
  for (int k = 0; k < kTasks; ++k) {
    double* p = out[std::size_t(k)].data();
    joule::spawn(
        {joule::out(p, 4)},
        [p, k, &go, &bodies](joule::cuda_context& c) {
          double* d = c.map(p);
          on_stream([d, k, &go] {
            while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
            for (int i = 0; i < 4; ++i) d[i] = k + i;
          });
          if (bodies.fetch_add(1) + 1 == kTasks)
            joule::spawn([&go] { go.store(true, std::memory_order_release); });
        },
        on_gpu());
  }
  joule::taskwait();
  for (int k = 0; k < kTasks; ++k)
    for (int i = 0; i < 4; ++i) ASSERT_EQ(out[std::size_t(k)][std::size_t(i)], k + i);
  EXPECT_EQ(g.tasks(), std::uint64_t(kTasks));
}

// The fake GPU's memory (FAKE_CUDA_MEMORY, read on each call) smaller than
// the region: cuMemAlloc fails, and the failure reaches taskwait with the
// driver's error; the GPU works again once memory suffices.
TEST_P(CudaTasksFlow, AFailedLaunchFailsTheTaskWithTheDriversMessage) {
  auto rt = fake_gpu_runtime(GetParam());
  std::vector<double> v(kN, 1.0);
  double* p = v.data();
  ::setenv("FAKE_CUDA_MEMORY", "4096", 1);
  gpu_add(p, 1.0);
  try {
    joule::taskwait();
    ::unsetenv("FAKE_CUDA_MEMORY");
    FAIL() << "the task did not fail";
  } catch (const joule::error& e) {
    ::unsetenv("FAKE_CUDA_MEMORY");
    EXPECT_NE(std::string(e.what()).find("CUDA_ERROR_OUT_OF_MEMORY"), std::string::npos)
        << e.what();
  }
  for (double x : v) ASSERT_EQ(x, 1.0);  // nothing came back from the failed task
  gpu_add(p, 1.0);
  joule::taskwait();
  for (double x : v) ASSERT_EQ(x, 2.0);
}

// A body that throws fails its task with its own exception; the region
// keeps the host's data and the GPU takes the next task.
TEST_P(CudaTasksFlow, ABodyThatThrowsFailsItsTask) {
  auto rt = fake_gpu_runtime(GetParam());
  std::vector<double> v(kN, 1.0);
  double* p = v.data();
  joule::spawn(
      {joule::inout(p, kN)}, [](joule::cuda_context&) { throw std::runtime_error("body failed"); },
      on_gpu());
  EXPECT_THROW(
      {
        try {
          joule::taskwait();
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "body failed");
          throw;
        }
      },
      std::runtime_error);
  for (double x : v) ASSERT_EQ(x, 1.0);
  gpu_add(p, 1.0);
  joule::taskwait();
  for (double x : v) ASSERT_EQ(x, 2.0);
}

INSTANTIATE_TEST_SUITE_P(Workers, CudaTasksFlow, ::testing::Values(1, 2, 4, 8),
                         [](const ::testing::TestParamInfo<int>& p) {
                           return "w" + std::to_string(p.param);
                         });

TEST(CudaTasksNoGpu, TheSpawnFailsWithTheProbesReason) {
  joule::runtime rt{{"JOULE_CUDA_DRIVER", "/nonexistent/libcuda-for-joule-test.so.1"},
                    {"JOULE_WORKERS", "2"}};
  std::string why;
  EXPECT_TRUE(joule::cuda_devices(&why).empty());
  EXPECT_NE(why.find("libcuda-for-joule-test"), std::string::npos) << why;
  std::vector<double> v(kN, 1.0);
  try {
    gpu_add(v.data(), 1.0);
    FAIL() << "the spawn did not fail";
  } catch (const joule::error& e) {
    EXPECT_NE(std::string(e.what()).find("no CUDA GPU: " + why), std::string::npos) << e.what();
  }
  joule::taskwait();
  for (double x : v) ASSERT_EQ(x, 1.0);
  EXPECT_EQ(joule_cuda_device_count(), 0);
}

TEST(CudaTasksNoGpu, AnUnknownGpuNumberSaysWhichAreAllowed) {
  auto rt = fake_gpu_runtime(2);
  std::vector<double> v(kN, 1.0);
  double* p = v.data();
  joule::device_options o = on_gpu();
  o.device_num = 7;
  try {
    joule::spawn(
        {joule::inout(p, kN)}, [](joule::cuda_context&) {}, o);
    FAIL() << "the spawn did not fail";
  } catch (const joule::error& e) {
    EXPECT_NE(std::string(e.what()).find("no GPU 7 (allowed device_num: 0"), std::string::npos)
        << e.what();
  }
}

TEST(CudaTasksNoGpu, ACardBodyForDeviceCudaIsRefusedAtSpawn) {
  auto rt = fake_gpu_runtime(2);
  double x = 1;
  double* p = &x;
  try {
    joule::spawn(
        {joule::inout(*p)}, [=](joule::card_context& c) { *c.map(p) = 2; }, on_gpu());
    FAIL() << "the spawn did not fail";
  } catch (const joule::error& e) {
    EXPECT_NE(std::string(e.what()).find("takes a joule::cuda_context& body"), std::string::npos)
        << e.what();
  }
  joule::taskwait();
  EXPECT_EQ(x, 1);
}

TEST(CudaTasksCardAndGpu, ARegionOnTheCardAndAGpuAtOnceIsRefused) {
#if defined(__SANITIZE_THREAD__)
  // The card is forked, and the fake driver's stream threads already run:
  // ThreadSanitizer stops a process that forks after starting threads.
  GTEST_SKIP() << "the emulated card forks; ThreadSanitizer does not support fork after threads";
#endif
  joule::runtime rt{{"JOULE_CUDA_DRIVER", JOULE_FAKE_CUDA_DRIVER},
                    {"JOULE_CARD", "emulated"},
                    {"JOULE_CARD_TOPOLOGY", "package:1 core:2 pu:1"},
                    {"JOULE_WORKERS", "2"}};
  std::vector<double> v(kN, 1.0);
  double* p = v.data();
  joule::spawn(
      {joule::inout(p, kN)},
      [=](joule::card_context& c) {
        double* q = c.map(p);
        c.parallel_for(0, kN, [=](std::int64_t i) { q[i] += 1; });
      },
      joule::device_options{});
  try {
    gpu_add(p, 1.0);
    FAIL() << "the GPU task's spawn did not fail";
  } catch (const joule::error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("kept on the card"), std::string::npos) << what;
    EXPECT_NE(what.find("a task for GPU 0"), std::string::npos) << what;
  }
  joule::taskwait();
  for (double x : v) ASSERT_EQ(x, 2.0);
  gpu_add(p, 1.0);  // after the taskwait it may move to the GPU
  joule::taskwait();
  for (double x : v) ASSERT_EQ(x, 3.0);
}

}  // namespace
