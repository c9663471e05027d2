// DLB's statistics API (dlb_stats.h) on the node table: a forked DLB
// process on CPU 1 that burns CPU, seen by a monitor through DLB_Stats_*:
// its pid, the CPUs it runs on, its CPU usage; and the calls joule does not
// answer (DLB_ERR_NOCOMP).
#include <gtest/gtest.h>

#include <algorithm>

#include "joule/dlb/dlb_stats.h"
#include "lending_support.hpp"

namespace {

using namespace lending_test;

class DlbStats : public NodeLendingTest {
 protected:
  DlbStats() : NodeLendingTest("stats") {}
};

TEST_F(DlbStats, NoTableNoStats) { EXPECT_EQ(DLB_Stats_Init(), DLB_ERR_NOSHMEM); }

TEST_F(DlbStats, MonitorSeesABusyProcess) {
  Channel ready, go;
  const pid_t child = fork_child([&] {
    cpu_set_t m;
    CPU_ZERO(&m);
    CPU_SET(1, &m);
    CHILD_CHECK(DLB_Init(0, &m, nullptr) == DLB_SUCCESS);
    spin_ms(200);  // some CPU time to see
    ready.send('R');
    CHILD_CHECK(go.recv() == 'G');
    CHILD_CHECK(DLB_Finalize() == DLB_SUCCESS);
  });
  ASSERT_EQ(ready.recv(), 'R');
  ASSERT_EQ(DLB_Stats_Init(), DLB_SUCCESS);
  int ncpus = 0, pids[16], n = 0;
  EXPECT_EQ(DLB_Stats_GetNumCpus(&ncpus), DLB_SUCCESS);
  EXPECT_GE(ncpus, 2);
  ASSERT_EQ(DLB_Stats_GetPidList(pids, &n, 16), DLB_SUCCESS);
  EXPECT_NE(std::find(pids, pids + n, child), pids + n);
  int active = -1;
  EXPECT_EQ(DLB_Stats_GetActiveCpus(child, &active), DLB_SUCCESS);
  EXPECT_EQ(active, 1);
  int list[16];
  ASSERT_EQ(DLB_Stats_GetActiveCpusList(list, &n, 16), DLB_SUCCESS);
  EXPECT_GE(n, 1);
  // Usage in percent of one CPU: the child burned 200 ms of CPU time.
  double avg = -1, usage = -1, node = -1;
  EXPECT_EQ(DLB_Stats_GetCpuAvgUsage(child, &avg), DLB_SUCCESS);
  EXPECT_GT(avg, 0.0);
  EXPECT_LE(avg, 100.0 * ncpus);
  EXPECT_EQ(DLB_Stats_GetCpuUsage(child, &usage), DLB_SUCCESS);
  EXPECT_GE(usage, 0.0);
  EXPECT_EQ(DLB_Stats_GetNodeAvgUsage(&node), DLB_SUCCESS);
  EXPECT_GT(node, 0.0);  // the busy child is one of the node's processes
  double avgs[16];
  ASSERT_EQ(DLB_Stats_GetCpuAvgUsageList(avgs, &n, 16), DLB_SUCCESS);
  EXPECT_GE(n, 1);
  EXPECT_EQ(DLB_Stats_GetCpuUsage(999999999, &usage), DLB_SUCCESS);
  EXPECT_EQ(usage, -1.0);  // DLB's "not found"
  double load[3];
  float pct;
  EXPECT_EQ(DLB_Stats_GetLoadAvg(child, load), DLB_ERR_NOCOMP);
  EXPECT_EQ(DLB_Stats_GetCpuStateIdle(1, &pct), DLB_ERR_NOCOMP);
  go.send('G');
  EXPECT_EQ(wait_child(child), 0);
  EXPECT_EQ(DLB_Stats_Finalize(), DLB_SUCCESS);
}

}  // namespace
