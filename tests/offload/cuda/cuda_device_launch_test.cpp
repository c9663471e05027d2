// Launches on a CudaDevice over the fake driver, for 1, 2 and 8 streams:
// copies in, a body computing on the device copy (cuLaunchHostFunc), copies
// back; `done` only from poll_completions(); launches on several streams
// ordered by a region's last writer and readers; residency, release, errors
// and the synchronous transfer-only launches.
#include <cuda.h>
#include <gtest/gtest.h>

#include <atomic>
#include <numeric>
#include <thread>
#include <vector>

#include "cuda_device.hpp"
#include "cuda_fake_support.hpp"
#include "joule/types.hpp"

namespace {

using namespace joule::cuda;
using namespace joule::offload;

class Launches : public fake::FakeEnv, public ::testing::WithParamInterface<int> {
 protected:
  void SetUp() override {
    FakeEnv::SetUp();
    std::string why;
    auto devices = open_cuda_devices(fake::settings(GetParam()), &why);
    ASSERT_EQ(devices.size(), 1u) << why;
    dev = std::move(devices[0]);
  }
  void TearDown() override {
    dev.reset();
    FakeEnv::TearDown();
  }
  std::unique_ptr<Device> dev;
};

// What the stream's host work does to a device copy: copy `src` or add.
struct StreamWork {
  int* dst = nullptr;
  const int* src = nullptr;
  std::size_t n = 0;
  int add = 0;
};

// A body's arguments: a host region, its length, and what the stream's
// host work does to the device copy. They outlive the launch (the tests
// wait for it), so the stream's work can live in them.
struct Args {
  int* host = nullptr;
  std::size_t n = 0;
  int add = 0;
  fake::Gate* gate = nullptr;  // the stream waits here first (null: no wait)
  int* source = nullptr;       // copy this region's device copy instead of adding
  StreamWork work{};
};

void on_stream(void* p) {
  auto* w = static_cast<StreamWork*>(p);
  for (std::size_t i = 0; i < w->n; ++i) w->dst[i] = w->src ? w->src[i] : w->dst[i] + w->add;
}

void body(void* a, void* c) {
  auto& args = *static_cast<Args*>(a);
  auto& ctx = *static_cast<CudaKernelContext*>(c);
  EXPECT_EQ(current_cuda_context(), &ctx);
  if (args.gate) ctx.host_fn(fake::Gate::wait, args.gate);
  args.work = {static_cast<int*>(ctx.map(args.host)), nullptr, args.n, args.add};
  if (args.source) args.work.src = static_cast<int*>(ctx.map(args.source));
  ctx.host_fn(on_stream, &args.work);
}

Launch launch_of(Args& a, std::vector<Region> regions) {
  Launch l;
  l.fn = body;
  l.args = &a;
  l.args_size = sizeof a;
  l.regions = std::move(regions);
  return l;
}

Region inout(std::vector<int>& v, bool to_card = true, bool to_host = true) {
  return {v.data(), v.size() * sizeof(int), kInout, to_card, to_host};
}
Region in(std::vector<int>& v, bool to_card = false) {
  return {v.data(), v.size() * sizeof(int), kIn, to_card, false};
}
Region out(std::vector<int>& v) { return {v.data(), v.size() * sizeof(int), kOut, false, true}; }

TEST_P(Launches, CopiesInComputesOnTheDeviceCopyAndCopiesBackDoneOnlyFromPolling) {
  std::vector<int> x(1000);
  std::iota(x.begin(), x.end(), 0);
  fake::Gate gate;
  Args a{x.data(), x.size(), 5, &gate};
  std::atomic<int> done{0};
  std::exception_ptr error;
  dev->submit(launch_of(a, {inout(x)}), [&](std::exception_ptr e) {
    error = e;
    ++done;
  });
  EXPECT_EQ(current_cuda_context(), nullptr);
  EXPECT_FALSE(dev->poll_completions());  // the stream waits at the gate
  EXPECT_EQ(done, 0);
  EXPECT_EQ(x[7], 7);  // not copied back yet
  gate.open();
  fake::poll_until(*dev, [&] { return done > 0; });
  EXPECT_EQ(done, 1);
  EXPECT_FALSE(error);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(x[std::size_t(i)], i + 5) << i;
  const DeviceEnergy e = dev->energy();
  EXPECT_EQ(e.launches, 1u);
  EXPECT_EQ(e.bytes_to_card, 4000u);
  EXPECT_EQ(e.bytes_to_host, 4000u);
  EXPECT_FALSE(dev->poll_completions());
  EXPECT_EQ(done, 1);
}

// One writer of `shared` held at a gate, readers on the other streams that
// copy it into their own regions (they must wait for the writer's event),
// then a second writer that must wait for those readers.
TEST_P(Launches, ARegionReadBySeveralIsOrderedByItsWriters) {
  std::vector<int> shared(256, 1);
  fake::Gate first;
  Args w{shared.data(), shared.size(), 10, &first};
  std::atomic<int> done{0};
  auto count = [&](std::exception_ptr e) {
    EXPECT_FALSE(e);
    ++done;
  };
  dev->submit(launch_of(w, {inout(shared, true, false)}), count);
  constexpr int kReaders = 12;
  std::vector<std::vector<int>> seen(kReaders, std::vector<int>(256, 0));
  std::vector<Args> r(kReaders);
  for (int i = 0; i < kReaders; ++i) {
    r[std::size_t(i)] = {seen[std::size_t(i)].data(), 256, 0, nullptr, shared.data()};
    dev->submit(launch_of(r[std::size_t(i)], {in(shared), out(seen[std::size_t(i)])}), count);
  }
  Args w2{shared.data(), shared.size(), 1000};
  dev->submit(launch_of(w2, {inout(shared, false, true)}), count);
  first.open();
  fake::poll_until(*dev, [&] { return done == kReaders + 2; });
  for (const auto& s : seen)
    for (int v : s) ASSERT_EQ(v, 11);
  for (int v : shared) ASSERT_EQ(v, 1011);
}

TEST_P(Launches, ACopyStaysResidentUntilReleased) {
  std::vector<int> x(512, 3);
  const long allocs = fake::count("cuMemAlloc"), frees = fake::count("cuMemFree");
  Args a{x.data(), x.size(), 4};
  dev->launch(launch_of(a, {inout(x, true, false)}));
  Args b{x.data(), x.size(), 100};
  const Ticket t = dev->launch(launch_of(b, {inout(x, false, true)}));
  fake::poll_until(*dev, [&] { return t.done(); });
  t.wait();
  EXPECT_EQ(fake::count("cuMemAlloc"), allocs + 1);  // the second launch found the copy
  EXPECT_EQ(x[0], 107);
  EXPECT_EQ(fake::count("registered"), 1);  // page-locked once
  dev->release(x.data(), x.size() * sizeof(int));
  EXPECT_EQ(fake::count("cuMemFree"), frees + 1);
  EXPECT_EQ(fake::count("live_blocks"), 0);
  EXPECT_EQ(fake::count("registered"), 0);
}

TEST_P(Launches, ARegionThatGrewIsReallocatedKeepingItsBytes) {
  std::vector<int> x(2048, 0);
  dev->copy_in(x.data(), 16 * sizeof(int));
  x[0] = 99;  // host changes the first element after the copy in
  Args a{x.data(), x.size(), 1};
  const Ticket t = dev->launch(launch_of(a, {inout(x, false, true)}));
  fake::poll_until(*dev, [&] { return t.done(); });
  EXPECT_EQ(x[0], 1);  // the device's old bytes, not the host's
  EXPECT_EQ(fake::count("live_blocks"), 1);
}

TEST_P(Launches, TransferOnlyLaunchesAreSynchronous) {
  std::vector<int> x(128, 2);
  dev->copy_in(x.data(), x.size() * sizeof(int));
  Args a{x.data(), x.size(), 40};
  const Ticket t = dev->launch(launch_of(a, {inout(x, false, false)}));
  fake::poll_until(*dev, [&] { return t.done(); });
  EXPECT_EQ(x[5], 2);
  Launch copy_back;
  copy_back.regions = {{x.data(), x.size() * sizeof(int), kIn, false, true}};
  const Ticket back = dev->launch(copy_back);
  EXPECT_TRUE(back.done());  // `done` ran inside submit, no polling
  EXPECT_EQ(x[5], 42);
}

TEST_P(Launches, CopyingBackARegionTheGpuDoesNotHoldFails) {
  std::vector<int> x(16, 0);
  const std::string e = fake::error_of([&] { dev->copy_out(x.data(), x.size() * sizeof(int)); });
  EXPECT_NE(e.find("which has no copy on the GPU"), std::string::npos) << e;
  EXPECT_EQ(fake::count("live_blocks"), 0);
  dev->release(x.data(), x.size() * sizeof(int));  // nothing to drop: fine
}

TEST_P(Launches, OutOfDeviceMemoryNamesCuMemAlloc) {
  setenv("FAKE_CUDA_MEMORY", "4096", 1);
  std::vector<int> x(2048);
  Args a{x.data(), x.size(), 1};
  joule_status_t code = JOULE_OK;
  EXPECT_EQ(fake::error_of([&] { dev->launch(launch_of(a, {inout(x)})); }, &code),
            "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of memory)");
  EXPECT_EQ(code, JOULE_ERR_NOMEM);
  EXPECT_EQ(fake::count("live_blocks"), 0);
}

TEST_P(Launches, AFailedStreamCompletesTheLaunchWithTheDriversError) {
  std::vector<int> x(64, 0);
  fake::fail(CUDA_ERROR_LAUNCH_FAILED);
  Args a{x.data(), x.size(), 1};
  const Ticket t = dev->launch(launch_of(a, {inout(x)}));
  fake::poll_until(*dev, [&] { return t.done(); });
  const std::string e = fake::error_of([&] { t.wait(); });
  EXPECT_NE(e.find("cuEventQuery: CUDA_ERROR_LAUNCH_FAILED"), std::string::npos) << e;
}

// A GPU whose context cannot be made current any more (lost): what is in
// flight fails with the driver's error at the next poll, instead of its
// tasks waiting for ever.
TEST_P(Launches, ALostGpuFailsWhatIsInFlight) {
  std::vector<int> x(64, 0);
  fake::Gate gate;
  Args a{x.data(), x.size(), 1, &gate};
  std::atomic<int> done{0};
  std::exception_ptr error;
  dev->submit(launch_of(a, {inout(x)}), [&](std::exception_ptr e) {
    error = e;
    ++done;
  });
  fake::lose_context(CUDA_ERROR_LAUNCH_FAILED);
  EXPECT_TRUE(dev->poll_completions());
  EXPECT_EQ(done, 1);
  ASSERT_TRUE(error);
  const std::string e = fake::error_of([&] { std::rethrow_exception(error); });
  EXPECT_NE(e.find("cuCtxPushCurrent: CUDA_ERROR_LAUNCH_FAILED"), std::string::npos) << e;
  EXPECT_FALSE(dev->poll_completions());  // nothing left in flight
  fake::lose_context(0);
  gate.open();
  dev.reset();  // waits for the fake stream's work, which uses gate and x
}

void maps_a_stranger(void*, void* c) {
  static int stranger;
  static_cast<CudaKernelContext*>(c)->map(&stranger);
}

TEST_P(Launches, MappingAnAddressOutsideTheRegionsFailsTheLaunch) {
  std::vector<int> x(64, 0);
  Launch l;
  l.fn = maps_a_stranger;
  l.regions = {inout(x)};
  const Ticket t = dev->launch(l);
  fake::poll_until(*dev, [&] { return t.done(); });
  const std::string e = fake::error_of([&] { t.wait(); });
  EXPECT_NE(e.find("none of the task's regions"), std::string::npos) << e;
}

TEST_P(Launches, ARefusedPageLockLeavesTheCopiesPageable) {
  setenv("FAKE_CUDA_PIN", "refuse", 1);
  std::vector<int> x(64, 1);
  Args a{x.data(), x.size(), 1};
  const Ticket t = dev->launch(launch_of(a, {inout(x)}));
  fake::poll_until(*dev, [&] { return t.done(); });
  t.wait();
  EXPECT_EQ(x[0], 2);
  EXPECT_EQ(fake::count("registered"), 0);
}

// Workers submitting and polling at once, as the engine's do: each launch
// runs exactly once and the launches on one region stay in order.
TEST_P(Launches, ManyThreadsSubmitAndPollAtOnce) {
  for (int threads : {1, 2, 4, 8}) {
    std::vector<std::vector<int>> data(std::size_t(threads), std::vector<int>(100, 0));
    std::vector<std::thread> pool;
    for (int i = 0; i < threads; ++i)
      pool.emplace_back([&, i] {
        auto& x = data[std::size_t(i)];
        for (int k = 0; k < 20; ++k) {
          Args a{x.data(), x.size(), 1};
          const Ticket t = dev->launch(launch_of(a, {inout(x, k == 0, k == 19)}));
          fake::poll_until(*dev, [&] { return t.done(); });
          t.wait();
        }
      });
    for (auto& t : pool) t.join();
    for (const auto& x : data)
      for (int v : x) ASSERT_EQ(v, 20) << threads << " threads";
    for (auto& x : data) dev->release(x.data(), x.size() * sizeof(int));
  }
}

INSTANTIATE_TEST_SUITE_P(Streams, Launches, ::testing::Values(1, 2, 8),
                         [](const auto& info) { return "streams" + std::to_string(info.param); });

}  // namespace
