// DLB_SetObserverRole: an observer thread (a monitoring or communication
// thread of the program) is not a worker: its LeWI calls and region starts
// and stops are refused, and its CPU time is not the process's useful time,
// with 1 to 8 observers (more than the machine's CPUs).
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "joule/dlb/dlb_talp.h"
#include "lending_support.hpp"

namespace {

using namespace lending_test;

constexpr std::int64_t kMs = 1000000;

class DlbObserver : public NodeLendingTest, public ::testing::WithParamInterface<int> {
 protected:
  DlbObserver() : NodeLendingTest("obs") {}
  void init_on_0() {
    cpu_set_t m;
    CPU_ZERO(&m);
    CPU_SET(0, &m);
    ASSERT_EQ(DLB_Init(0, &m, nullptr), DLB_SUCCESS);
  }
  // Region "r" over n threads burning ms each (observers or not) and the
  // calling thread burning 20 ms; its useful time.
  std::int64_t useful_with(int n, int ms, bool observers) {
    dlb_monitor_t* r = DLB_MonitoringRegionRegister("r");
    EXPECT_EQ(DLB_MonitoringRegionStart(r), DLB_SUCCESS);
    std::vector<std::thread> ts;
    for (int i = 0; i < n; ++i)
      ts.emplace_back([=] {
        if (observers) {
          EXPECT_EQ(DLB_SetObserverRole(true), DLB_SUCCESS);
        }
        spin_ms(ms);  // ends as an observer: its time stays out after it exited
      });
    for (auto& t : ts) t.join();
    spin_ms(20);
    EXPECT_EQ(DLB_MonitoringRegionStop(r), DLB_SUCCESS);
    return r->useful_time;
  }
};

TEST_F(DlbObserver, ObserverCallsAreRefused) {
  init_on_0();
  std::thread([] {
    ASSERT_EQ(DLB_SetObserverRole(true), DLB_SUCCESS);
    EXPECT_EQ(DLB_Lend(), DLB_ERR_PERM);
    EXPECT_EQ(DLB_Reclaim(), DLB_ERR_PERM);
    EXPECT_EQ(DLB_MonitoringRegionStart(DLB_GLOBAL_REGION), DLB_ERR_PERM);
    EXPECT_EQ(DLB_MonitoringRegionStop(DLB_GLOBAL_REGION), DLB_ERR_PERM);
    ASSERT_EQ(DLB_SetObserverRole(false), DLB_SUCCESS);  // a worker again
    EXPECT_NE(DLB_Reclaim(), DLB_ERR_PERM);
  }).join();
  EXPECT_NE(DLB_Lend(), DLB_ERR_PERM);  // other threads were never observers
  EXPECT_EQ(DLB_Finalize(), DLB_SUCCESS);
}

TEST_P(DlbObserver, ObserverTimeIsNotUseful) {
  init_on_0();
  const std::int64_t useful = useful_with(GetParam(), 100, true);
  EXPECT_GE(useful, 20 * kMs);
  EXPECT_LT(useful, 70 * kMs);  // one observer's 100 ms would be counted
  EXPECT_EQ(DLB_Finalize(), DLB_SUCCESS);
}

TEST_P(DlbObserver, WorkerTimeIsUseful) {  // the control: the same threads, not observers
  init_on_0();
  EXPECT_GE(useful_with(GetParam(), 100, false), (20 + 100 * GetParam()) * kMs);
  EXPECT_EQ(DLB_Finalize(), DLB_SUCCESS);
}

INSTANTIATE_TEST_SUITE_P(Threads, DlbObserver, ::testing::Values(1, 2, 4, 8));

}  // namespace
