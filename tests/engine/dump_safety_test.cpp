// The state dump taken while the engine changes under it: a thread dumps
// again and again while the workers create, order and finish tasks with
// dependencies, taskwaits reset the domains, tasks block and are unblocked,
// tasks suspend through ALPI for a time and for an event, and a polling
// service registers and leaves. No dump may crash, hang or
// race (this test runs under the tsan preset too), and each must stay
// bounded in size. 1, 2, 4 workers and more workers than CPUs.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "joule/alpi.h"
#include "joule/joule.hpp"
#include "joule/nanos6/nanos6.h"
#include "runtime.hpp"
#include "state_dump.hpp"

namespace {

int quiet_service(void* flag) { return static_cast<std::atomic<bool>*>(flag)->load() ? 1 : 0; }

// The calling task runs again by `mode` once its body returns.
alpi_task* suspend_self(alpi_suspend_mode_t mode, std::uint64_t args, std::uint64_t events) {
  alpi_task* self = nullptr;
  EXPECT_EQ(alpi_task_self(&self), ALPI_SUCCESS);
  if (events > 0) EXPECT_EQ(alpi_task_events_increase(self, events), ALPI_SUCCESS);
  EXPECT_EQ(alpi_task_suspend_mode_set(self, mode, args), ALPI_SUCCESS);
  EXPECT_EQ(alpi_task_suspend(self), ALPI_SUCCESS);
  return self;
}

// Chains and fans of tasks over a few cells, with nested children that have
// dependencies of their own (a domain per parent), ended by a taskwait.
void one_round(long* cells, int n) {
  for (int i = 0; i < 64; ++i) {
    long* c = &cells[i % n];
    joule::spawn({joule::inout(*c)}, [c] { ++*c; });
    joule::spawn({joule::in(*c)}, [c] {
      long local[2] = {*c, 0};
      joule::spawn({joule::inout(local[0])}, [&local] { ++local[0]; });
      joule::spawn({joule::in(local[0]), joule::out(local[1])}, [&local] { local[1] = local[0]; });
      joule::taskwait();
    });
  }
  // A task that blocks and is unblocked at once by a thread outside joule
  // (a task spinning for it could hold the only worker).
  std::atomic<void*> ctx{nullptr};
  joule::spawn([&ctx] {
    void* c = nanos6_get_current_blocking_context();
    ctx.store(c);
    nanos6_block_current_task(c);
  });
  // Suspended once for 100 us, and once until the thread outside joule
  // decreases its event (ALPI).
  std::atomic<int> timed_runs{0};
  std::atomic<alpi_task*> evented{nullptr};
  joule::spawn([&timed_runs] {
    if (timed_runs.fetch_add(1) == 0) suspend_self(ALPI_SUSPEND_TIMEOUT_SUBMIT, 100'000, 0);
  });
  joule::spawn([&evented] {
    if (!evented.load()) evented.store(suspend_self(ALPI_SUSPEND_EVENT_SUBMIT, 0, 1));
  });
  std::thread unblocker([&ctx, &evented] {
    void* c;
    while (!(c = ctx.load())) std::this_thread::yield();
    nanos6_unblock_task(c);
    alpi_task* e;
    while (!(e = evented.load())) std::this_thread::yield();
    alpi_task_events_decrease(e, 1);
  });
  joule::taskwait();
  unblocker.join();
  EXPECT_EQ(timed_runs.load(), 2);
}

class DumpSafety : public ::testing::TestWithParam<int> {};

TEST_P(DumpSafety, DumpsWhileTheEngineChangesAreSafeAndBounded) {
  joule::runtime rt({{"JOULE_WORKERS", std::to_string(GetParam())}});
  joule::engine::Runtime& engine = joule::engine::Runtime::get();
  std::atomic<bool> stop{false};
  std::atomic<int> dumps{0};
  std::size_t largest = 0;
  std::thread dumper([&] {
    while (!stop.load()) {
      const std::string text = joule::engine::state_dump(engine, 0);
      largest = std::max(largest, text.size());
      ++dumps;
    }
  });
  static long cells[8];
  for (long& c : cells) c = 0;
  std::atomic<bool> service_done{false};
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
  int rounds = 0;
  while (std::chrono::steady_clock::now() < until || dumps.load() < 5) {
    if (rounds % 8 == 0)
      nanos6_register_polling_service("dump safety", quiet_service, &service_done);
    one_round(cells, 8);
    if (rounds % 8 == 7)
      nanos6_unregister_polling_service("dump safety", quiet_service, &service_done);
    ++rounds;
  }
  if (rounds % 8 != 0)
    nanos6_unregister_polling_service("dump safety", quiet_service, &service_done);
  stop = true;
  dumper.join();
  EXPECT_GE(dumps.load(), 5);
  EXPECT_LT(largest, 64u * 1024);
  for (long c : cells) EXPECT_EQ(c, long(rounds) * 8);
}

INSTANTIATE_TEST_SUITE_P(Workers, DumpSafety,
                         ::testing::Values(1, 2, 4,
                                           int(std::thread::hardware_concurrency()) * 2 + 1));

}  // namespace
