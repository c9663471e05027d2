// ALPI's suspend with children: a suspended task's next run may start on
// another thread while children of its earlier runs still finish, and
// those children read where its body's thread sleeps just as the new run
// sets it (Task::runner). A taskwait at the start of each run must still
// end and see every earlier run's children; under the tsan preset no
// access may race. 1 worker (serial inline mode ended first), 2, 4 and
// more workers than CPUs.
#include <joule/alpi.h>
#include <joule/nanos6/nanos6.h>
#include <joule/joule.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "runtime_sweep.hpp"

namespace {

using namespace joule_test;

class AlpiResume : public testing::TestWithParam<int> {
 protected:
  void SetUp() override { rt_ = start_serial_at_one(GetParam()); }
  std::unique_ptr<joule::runtime> rt_;
};

// Busy for about `us` microseconds: the child is still running when its
// parent's next run starts.
void busy_for(int us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (std::chrono::steady_clock::now() < until) {
  }
}

TEST_P(AlpiResume, EachRunWaitsForTheChildrenOfTheRunsBefore) {
  nanos6_get_num_cpus();  // the first call ends the serial inline mode
  constexpr int kRuns = 40;
  constexpr int kChildren = 8;
  struct State {
    int runs = 0;
    int short_waits = 0;  // taskwaits that saw an earlier run's child unfinished
    std::atomic<int> finished{0};
  } s;
  const auto start = std::chrono::steady_clock::now();
  joule::spawn({}, [&s] {
    joule::taskwait();
    if (s.finished.load() != s.runs * kChildren) ++s.short_waits;
    if (++s.runs == kRuns) return;  // the last run: the task completes
    for (int i = 0; i < kChildren; ++i)
      joule::spawn({}, [&s] {
        busy_for(50);
        s.finished.fetch_add(1);
      });
    alpi_task* self = nullptr;
    ASSERT_EQ(alpi_task_self(&self), ALPI_SUCCESS);
    ASSERT_EQ(alpi_task_suspend_mode_set(self, ALPI_SUSPEND_SUBMIT, 0), ALPI_SUCCESS);
    ASSERT_EQ(alpi_task_suspend(self), ALPI_SUCCESS);
  });
  joule::taskwait();
  EXPECT_EQ(s.runs, kRuns);
  EXPECT_EQ(s.short_waits, 0);
  EXPECT_EQ(s.finished.load(), (kRuns - 1) * kChildren);
  // A wake sent to an earlier run's thread costs at most the waits' time
  // limit (100 ms) per run; without it a run would sleep for ever.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
}

INSTANTIATE_TEST_SUITE_P(Workers, AlpiResume,
                         testing::Values(1, 2, 4, int(std::thread::hardware_concurrency()) * 2 + 1),
                         [](const auto& info) { return std::to_string(info.param) + "workers"; });

}  // namespace
