// CUDA tasks' data on the fake driver (docs/offload-cuda.md, "CUDA tasks and
// their data"): a host task after a GPU task sees its output (copied back in
// the host task's prologue), a GPU task sees a host task's write, data stays
// resident on the GPU between GPU tasks, and taskwait, taskwait_on and the
// runtime's stop bring it home. Every case for 1, 2, 4 and 8 workers.
#include <vector>

#include "cuda_tasks_common.hpp"

namespace {

using namespace cuda_tasks;

class CudaTasksData : public ::testing::TestWithParam<int> {};

TEST_P(CudaTasksData, HostTaskAfterGpuTaskSeesItsOutput) {
  auto rt = fake_gpu_runtime(GetParam());
  std::vector<double> v(kN, 0.0);
  double* p = v.data();
  double seen = -1;
  Gpu0 g;
  gpu_fill(p, 5.0);
  joule::spawn({joule::in(p, kN)}, [p, &seen] { seen = p[3]; });
  joule::taskwait();
  EXPECT_EQ(seen, 8.0);
  EXPECT_EQ(g.in(), 0u);    // out: nothing to copy in
  EXPECT_EQ(g.back(), 1u);  // once, for the host task; taskwait finds the host current
  EXPECT_EQ(g.tasks(), 1u);
}

TEST_P(CudaTasksData, GpuTaskAfterHostTaskSeesItsWrite) {
  auto rt = fake_gpu_runtime(GetParam());
  std::vector<double> v(kN, 0.0);
  double* p = v.data();
  Gpu0 g;
  gpu_fill(p, 1.0);  // the GPU holds p
  joule::spawn({joule::inout(p, kN)}, [p] {
    for (std::int64_t i = 0; i < kN; ++i) p[i] *= 10;  // the GPU's copy is stale now
  });
  gpu_add(p, 1.0);  // copies the host's write in
  joule::taskwait();
  for (std::int64_t i = 0; i < kN; ++i) ASSERT_EQ(v[std::size_t(i)], 10.0 * (1.0 + double(i)) + 1);
  EXPECT_EQ(g.in(), 1u);
  EXPECT_EQ(g.back(), 2u);  // for the host task, then at taskwait
}

TEST_P(CudaTasksData, ChainStaysResidentOnTheGpu) {
  auto rt = fake_gpu_runtime(GetParam());
  std::vector<double> v(kN, 1.0);
  double* p = v.data();
  Gpu0 g;
  gpu_add(p, 1.0);
  gpu_add(p, 2.0);
  joule::taskwait();
  for (double x : v) ASSERT_EQ(x, 4.0);
  EXPECT_EQ(g.in(), 1u);
  EXPECT_EQ(g.hits(), 1u);
  EXPECT_EQ(g.back(), 1u);
}

TEST_P(CudaTasksData, TaskwaitCopiesBackAndDropsTheGpuCopy) {
  auto rt = fake_gpu_runtime(GetParam());
  std::vector<double> v(kN, 1.0);
  double* p = v.data();
  Gpu0 g;
  gpu_add(p, 1.0);
  joule::taskwait();
  for (double x : v) ASSERT_EQ(x, 2.0);
  v.assign(kN, 5.0);  // code outside tasks writes host memory
  gpu_add(p, 1.0);    // so the GPU copies it in again
  joule::taskwait();
  for (double x : v) ASSERT_EQ(x, 6.0);
  EXPECT_EQ(g.in(), 2u);
  EXPECT_EQ(g.hits(), 0u);
  EXPECT_EQ(g.back(), 2u);
}

TEST_P(CudaTasksData, TaskwaitOnCopiesBackThatRegion) {
  auto rt = fake_gpu_runtime(GetParam());
  std::vector<double> a(kN, 1.0), b(kN, 1.0);
  Gpu0 g;
  gpu_add(a.data(), 1.0);
  gpu_add(b.data(), 2.0);
  joule::taskwait_on({joule::in(a.data(), kN)});
  for (double x : a) ASSERT_EQ(x, 2.0);
  EXPECT_EQ(g.back(), 1u);  // a only: b stays on the GPU
  joule::taskwait();
  for (double x : b) ASSERT_EQ(x, 3.0);
  EXPECT_EQ(g.back(), 2u);
}

TEST_P(CudaTasksData, StopCopiesBack) {
  std::vector<double> v(kN, 0.0);
  {
    auto rt = fake_gpu_runtime(GetParam());
    gpu_fill(v.data(), 3.0);
  }  // no taskwait: the runtime's stop brings it home
  for (std::int64_t i = 0; i < kN; ++i) ASSERT_EQ(v[std::size_t(i)], 3.0 + double(i));
}

INSTANTIATE_TEST_SUITE_P(Workers, CudaTasksData, ::testing::Values(1, 2, 4, 8),
                         [](const ::testing::TestParamInfo<int>& p) {
                           return "w" + std::to_string(p.param);
                         });

}  // namespace
