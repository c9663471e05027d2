// TALP's node-level calls between processes of one node table: two forked
// DLB processes publish their regions' times, which a third party reads with
// DLB_TALP_GetNodeTimes / DLB_TALP_QueryPOPNodeMetrics, and which the two
// gather with the node-collective DLB_TALP_CollectPOPNodeMetrics.
#include <sys/mman.h>
#include <time.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "joule/dlb/dlb_talp.h"
#include "lending_support.hpp"

namespace {

using namespace lending_test;

class DlbNodeTalp : public NodeLendingTest {
 protected:
  DlbNodeTalp() : NodeLendingTest("ntalp") {}
};

bool init_on(int cpu) {
  cpu_set_t m;
  CPU_ZERO(&m);
  CPU_SET(cpu, &m);
  return DLB_Init(0, &m, nullptr) == DLB_SUCCESS;
}

// A child on `cpu` that runs region "work" for ms of CPU time, says 'S' and
// stays in the table until told 'G'.
pid_t worker(int cpu, int ms, Channel& ready, Channel& go) {
  return fork_child([cpu, ms, &ready, &go] {
    CHILD_CHECK(init_on(cpu));
    dlb_monitor_t* r = DLB_MonitoringRegionRegister("work");
    CHILD_CHECK(r && DLB_MonitoringRegionStart(r) == DLB_SUCCESS);
    spin_ms(ms);
    CHILD_CHECK(DLB_MonitoringRegionStop(r) == DLB_SUCCESS);
    ready.send('S');
    CHILD_CHECK(go.recv() == 'G');
    CHILD_CHECK(DLB_Finalize() == DLB_SUCCESS);
  });
}

constexpr std::int64_t kMs = 1000000;

TEST_F(DlbNodeTalp, NothingPublishedYet) {
  dlb_node_times_t t[2];
  int n = -1;
  dlb_node_metrics_t m;
  EXPECT_EQ(DLB_TALP_GetNodeTimes("work", t, &n, 2), DLB_ERR_NOSHMEM);
  EXPECT_EQ(DLB_TALP_QueryPOPNodeMetrics("work", &m), DLB_ERR_NOSHMEM);
  EXPECT_EQ(DLB_TALP_CollectPOPNodeMetrics(nullptr, &m), DLB_ERR_NOTALP);
}

TEST_F(DlbNodeTalp, ThirdPartyReadsTheTimesOfTwoProcesses) {
  Channel ready, go;
  const pid_t a = worker(0, 40, ready, go);
  const pid_t b = worker(1, 160, ready, go);
  ASSERT_EQ(ready.recv(), 'S');
  ASSERT_EQ(ready.recv(), 'S');
  ASSERT_EQ(DLB_TALP_Attach(), DLB_SUCCESS);
  dlb_node_times_t t[4];
  int n = 0;
  ASSERT_EQ(DLB_TALP_GetNodeTimes("work", t, &n, 4), DLB_SUCCESS);
  ASSERT_EQ(n, 2);
  std::sort(t, t + 2, [&](auto& x, auto& y) { return (x.pid == a) > (y.pid == a); });
  EXPECT_EQ(t[0].pid, a);
  EXPECT_EQ(t[1].pid, b);
  EXPECT_GE(t[0].useful_time, 40 * kMs);
  EXPECT_GE(t[1].useful_time, 160 * kMs);
  EXPECT_EQ(t[0].mpi_time, 0);
  ASSERT_EQ(DLB_TALP_GetNodeTimes("work", t, &n, 1), DLB_SUCCESS);  // room for one only
  EXPECT_EQ(n, 1);

  dlb_node_metrics_t m;
  ASSERT_EQ(DLB_TALP_QueryPOPNodeMetrics("work", &m), DLB_SUCCESS);
  EXPECT_STREQ(m.name, "work");
  EXPECT_EQ(m.processes_per_node, 2);
  ASSERT_EQ(DLB_TALP_GetNodeTimes("work", t, &n, 4), DLB_SUCCESS);
  EXPECT_EQ(m.total_useful_time, t[0].useful_time + t[1].useful_time);
  EXPECT_EQ(m.max_useful_time, std::max(t[0].useful_time, t[1].useful_time));
  EXPECT_EQ(m.total_mpi_time, 0);
  // Without MPI time communication is perfect and the imbalance is all
  // load balance: avg useful / max useful, at most (40+160)/(2*160).
  EXPECT_FLOAT_EQ(m.communication_efficiency, 1.0f);
  EXPECT_GT(m.load_balance, 0.5f);
  EXPECT_LT(m.load_balance, 0.8f);
  EXPECT_FLOAT_EQ(m.parallel_efficiency, m.communication_efficiency * m.load_balance);
  EXPECT_EQ(DLB_TALP_QueryPOPNodeMetrics("nope", &m), DLB_ERR_NOENT);
  // The global region of each process is there too.
  ASSERT_EQ(DLB_TALP_GetNodeTimes(DLB_GLOBAL_REGION, t, &n, 4), DLB_SUCCESS);
  EXPECT_EQ(n, 2);

  go.send('G');
  go.send('G');
  EXPECT_EQ(wait_child(a), 0);
  EXPECT_EQ(wait_child(b), 0);
  // Finalised processes take their times with them.
  const int r = DLB_TALP_QueryPOPNodeMetrics("work", &m);
  EXPECT_TRUE(r == DLB_ERR_NOENT || r == DLB_ERR_NOSHMEM) << r;
  EXPECT_EQ(DLB_TALP_Detach(), DLB_SUCCESS);
}

TEST_F(DlbNodeTalp, CollectGathersEveryProcessOfTheNode) {
  auto* seen = static_cast<dlb_node_metrics_t*>(::mmap(nullptr, 2 * sizeof(dlb_node_metrics_t),
                                                       PROT_READ | PROT_WRITE,
                                                       MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  Channel attached, go;
  std::vector<pid_t> kids;
  for (int k = 0; k < 2; ++k)
    kids.push_back(fork_child([&, k] {
      CHILD_CHECK(init_on(k));
      attached.send('A');  // the barrier counts the processes attached when it runs
      CHILD_CHECK(go.recv() == 'G');
      dlb_monitor_t* r = DLB_MonitoringRegionRegister("phase");
      CHILD_CHECK(DLB_MonitoringRegionStart(r) == DLB_SUCCESS);
      spin_ms(30 + 60 * k);
      CHILD_CHECK(DLB_MonitoringRegionStop(r) == DLB_SUCCESS);
      CHILD_CHECK(DLB_TALP_CollectPOPNodeMetrics(r, &seen[k]) == DLB_SUCCESS);
      CHILD_CHECK(DLB_Finalize() == DLB_SUCCESS);
    }));
  ASSERT_EQ(attached.recv(), 'A');
  ASSERT_EQ(attached.recv(), 'A');
  go.send('G');
  go.send('G');
  for (pid_t p : kids) ASSERT_EQ(wait_child(p), 0);
  for (int k = 0; k < 2; ++k) {
    EXPECT_STREQ(seen[k].name, "phase");
    EXPECT_EQ(seen[k].processes_per_node, 2);
    EXPECT_GE(seen[k].total_useful_time, 120 * kMs);
    EXPECT_GE(seen[k].max_useful_time, 90 * kMs);
  }
  EXPECT_EQ(seen[0].total_useful_time, seen[1].total_useful_time);
  EXPECT_EQ(seen[0].max_useful_time, seen[1].max_useful_time);
  EXPECT_EQ(seen[0].load_balance, seen[1].load_balance);
  ::munmap(seen, 2 * sizeof(dlb_node_metrics_t));
}

}  // namespace
