// The DLB API beyond LeWI in one process: TALP monitoring regions (nested,
// reset, values consistent), DLB's variables, the version, the *InMask verbs
// and DROM's string masks, and the calls joule refuses with DLB_ERR_NOCOMP.
#include <gtest/gtest.h>

#include <time.h>

#include <cmath>
#include <cstring>
#include <string>

#include "joule/dlb/dlb_drom.h"
#include "joule/dlb/dlb_sp.h"
#include "joule/dlb/dlb_talp.h"
#include "lending_support.hpp"

namespace {

using namespace lending_test;

class DlbTalp : public NodeLendingTest {
 protected:
  DlbTalp() : NodeLendingTest("talp") {}
  void init_on(int cpu) {
    cpu_set_t m;
    CPU_ZERO(&m);
    CPU_SET(cpu, &m);
    ASSERT_EQ(DLB_Init(0, &m, nullptr), DLB_SUCCESS);
  }
};

void sleep_ms(int ms) {
  timespec ts{0, long(ms) * 1000000L};
  nanosleep(&ts, nullptr);
}

TEST_F(DlbTalp, RegionsNeedInit) {
  EXPECT_EQ(DLB_MonitoringRegionRegister("r"), nullptr);
  EXPECT_EQ(DLB_MonitoringRegionGetGlobal(), nullptr);
  EXPECT_EQ(DLB_MonitoringRegionStart(nullptr), DLB_ERR_NOTALP);
  EXPECT_EQ(DLB_MonitoringRegionsUpdate(), DLB_ERR_NOTALP);
}

TEST_F(DlbTalp, NestedRegionsMeasureWallAndUsefulTime) {
  init_on(0);
  dlb_monitor_t* outer = DLB_MonitoringRegionRegister("outer");
  dlb_monitor_t* inner = DLB_MonitoringRegionRegister("inner");
  ASSERT_NE(outer, nullptr);
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(DLB_MonitoringRegionRegister("outer"), outer);
  EXPECT_STREQ(outer->name, "outer");
  EXPECT_EQ(DLB_MonitoringRegionStop(outer), DLB_NOUPDT);
  ASSERT_EQ(DLB_MonitoringRegionStart(outer), DLB_SUCCESS);
  EXPECT_EQ(DLB_MonitoringRegionStart(outer), DLB_NOUPDT);
  sleep_ms(60);  // wall time, no CPU time
  ASSERT_EQ(DLB_MonitoringRegionStart(inner), DLB_SUCCESS);
  spin_ms(60);
  ASSERT_EQ(DLB_MonitoringRegionStop(inner), DLB_SUCCESS);
  ASSERT_EQ(DLB_MonitoringRegionStop(outer), DLB_SUCCESS);

  EXPECT_EQ(outer->num_measurements, 1);
  EXPECT_EQ(inner->num_measurements, 1);
  EXPECT_GE(outer->elapsed_time, 120'000'000);
  EXPECT_GE(inner->elapsed_time, 60'000'000);
  EXPECT_LE(inner->elapsed_time, outer->elapsed_time);  // nested inside
  EXPECT_GE(inner->useful_time, 60'000'000);            // it computed
  EXPECT_LE(inner->useful_time, inner->elapsed_time * inner->num_cpus);
  EXPECT_LT(outer->useful_time, outer->elapsed_time);  // it also slept
  EXPECT_GE(outer->useful_time, inner->useful_time);
  EXPECT_EQ(outer->num_cpus, 1);
  EXPECT_GE(outer->stop_time, outer->start_time);
  EXPECT_EQ(outer->mpi_time, 0);

  dlb_pop_metrics_t pop;
  ASSERT_EQ(DLB_TALP_CollectPOPMetrics(inner, &pop), DLB_SUCCESS);
  EXPECT_STREQ(pop.name, "inner");
  EXPECT_EQ(pop.elapsed_time, inner->elapsed_time);
  EXPECT_GT(pop.parallel_efficiency, 0.f);
  EXPECT_LE(pop.parallel_efficiency, 1.05f);
  EXPECT_TRUE(std::isnan(pop.mpi_load_balance));  // not measured
  EXPECT_EQ(DLB_MonitoringRegionReport(inner), DLB_SUCCESS);
  EXPECT_EQ(DLB_Finalize(), DLB_SUCCESS);
}

TEST_F(DlbTalp, LastOpenRegionStopsTheRegionStartedLast) {
  init_on(0);
  dlb_monitor_t* a = DLB_MonitoringRegionRegister("a");
  dlb_monitor_t* b = DLB_MonitoringRegionRegister("b");
  ASSERT_EQ(DLB_MonitoringRegionStart(a), DLB_SUCCESS);
  ASSERT_EQ(DLB_MonitoringRegionStart(b), DLB_SUCCESS);
  EXPECT_EQ(DLB_MonitoringRegionStop(DLB_LAST_OPEN_REGION), DLB_SUCCESS);
  EXPECT_EQ(b->num_measurements, 1);
  EXPECT_EQ(a->num_measurements, 0);
  EXPECT_EQ(DLB_MonitoringRegionStop(DLB_LAST_OPEN_REGION), DLB_SUCCESS);
  EXPECT_EQ(a->num_measurements, 1);
  // Only the global region runs now: it is not "last open".
  EXPECT_EQ(DLB_MonitoringRegionStop(DLB_LAST_OPEN_REGION), DLB_ERR_NOENT);
  EXPECT_EQ(DLB_Finalize(), DLB_SUCCESS);
}

TEST_F(DlbTalp, ResetGlobalRegionAndTimes) {
  init_on(0);
  dlb_monitor_t* r = DLB_MonitoringRegionRegister("r");
  ASSERT_EQ(DLB_MonitoringRegionStart(r), DLB_SUCCESS);
  spin_ms(30);
  ASSERT_EQ(DLB_MonitoringRegionStop(r), DLB_SUCCESS);
  ASSERT_EQ(DLB_MonitoringRegionStart(r), DLB_SUCCESS);
  ASSERT_EQ(DLB_MonitoringRegionStop(r), DLB_SUCCESS);
  EXPECT_EQ(r->num_measurements, 2);
  ASSERT_EQ(DLB_MonitoringRegionReset(r), DLB_SUCCESS);
  EXPECT_EQ(r->num_resets, 1);
  EXPECT_EQ(r->num_measurements, 0);
  EXPECT_EQ(r->elapsed_time, 0);
  EXPECT_EQ(r->useful_time, 0);
  EXPECT_STREQ(r->name, "r");

  dlb_monitor_t* global = DLB_MonitoringRegionGetGlobal();
  ASSERT_NE(global, nullptr);
  EXPECT_STREQ(global->name, DLB_GLOBAL_REGION_NAME);
  EXPECT_EQ(DLB_MonitoringRegionGetImplicit(), global);
  EXPECT_EQ(DLB_MonitoringRegionRegister(DLB_GLOBAL_REGION_NAME), global);
  EXPECT_EQ(DLB_MonitoringRegionStart(DLB_GLOBAL_REGION), DLB_NOUPDT);  // running since Init
  ASSERT_EQ(DLB_MonitoringRegionsUpdate(), DLB_SUCCESS);
  EXPECT_GE(global->elapsed_time, 30'000'000);
  EXPECT_GE(global->useful_time, 0);
  double mpi = -1, useful = -1;
  ASSERT_EQ(DLB_TALP_GetTimes(0, &mpi, &useful), DLB_SUCCESS);
  EXPECT_EQ(mpi, 0.0);  // no MPI call yet
  EXPECT_GT(useful, 0.0);
  EXPECT_EQ(DLB_TALP_GetTimes(1, &mpi, &useful), DLB_ERR_NOCOMP);
  // An MPI call as libjoule-mpi reports it: MPI time, not useful time.
  dlb_monitor_t* comm = DLB_MonitoringRegionRegister("comm");
  ASSERT_EQ(DLB_MonitoringRegionStart(comm), DLB_SUCCESS);
  joule_trace_mpi_enter("MPI_Barrier");
  spin_ms(40);
  joule_trace_mpi_leave();
  ASSERT_EQ(DLB_MonitoringRegionStop(comm), DLB_SUCCESS);
  EXPECT_EQ(comm->num_mpi_calls, 1);
  EXPECT_GE(comm->mpi_time, 40'000'000);
  EXPECT_LE(comm->mpi_time, comm->elapsed_time);
  EXPECT_LT(comm->useful_time, 20'000'000);  // the spin was inside MPI
  dlb_monitor_t foreign{};
  EXPECT_EQ(DLB_MonitoringRegionStart(&foreign), DLB_ERR_NOENT);
  EXPECT_EQ(DLB_Finalize(), DLB_SUCCESS);
}

TEST_F(DlbTalp, VariablesVersionAndUnsupportedCalls) {
  char value[256] = "";
  EXPECT_EQ(DLB_GetVariable("--no-such-option", value), DLB_ERR_NOENT);
  EXPECT_EQ(DLB_SetVariable("--no-such-option", "1"), DLB_ERR_NOENT);
  EXPECT_EQ(DLB_SetVariable("--lewi", "no"), DLB_ERR_PERM);
  ASSERT_EQ(DLB_GetVariable("--shm-key", value), DLB_SUCCESS);
  EXPECT_EQ(std::string(value), shm_.name);
  ASSERT_EQ(DLB_GetVariable("drom", value), DLB_SUCCESS);
  EXPECT_STREQ(value, "yes");
  EXPECT_EQ(DLB_PrintVariables(1), DLB_SUCCESS);
  int major = 0, minor = -1, patch = -1;
  ASSERT_EQ(DLB_GetVersion(&major, &minor, &patch), DLB_SUCCESS);
  EXPECT_EQ(major, 3);
  EXPECT_GE(minor, 0);
  EXPECT_STRNE(DLB_Strerror(DLB_ERR_NOTALP), DLB_Strerror(12345));
}

// Two processes with one CPU each: *InMask takes only CPUs of the mask, up
// to the count; DROM's string form moves a CPU.
TEST_F(DlbTalp, InMaskVerbsAndStringMasks) {
  Channel to_parent, to_child;
  const pid_t child = fork_child([&] {
    cpu_set_t m;
    CPU_ZERO(&m);
    CPU_SET(1, &m);
    CHILD_CHECK(DLB_Init(0, &m, nullptr) == DLB_SUCCESS);
    CHILD_CHECK(DLB_Lend() == DLB_SUCCESS);
    to_parent.send('L');
    CHILD_CHECK(to_child.recv() == 'D');
    CHILD_CHECK(DLB_Finalize() == DLB_SUCCESS);
  });
  init_on(0);
  ASSERT_EQ(to_parent.recv(), 'L');
  cpu_set_t only0;
  CPU_ZERO(&only0);
  CPU_SET(0, &only0);
  EXPECT_EQ(DLB_BorrowCpusInMask(DLB_MAX_CPUS, &only0), DLB_NOUPDT);  // already ours
  cpu_set_t both;
  CPU_ZERO(&both);
  CPU_SET(0, &both);
  CPU_SET(1, &both);
  EXPECT_EQ(DLB_BorrowCpusInMask(0, &both), DLB_NOUPDT);
  EXPECT_EQ(DLB_AcquireCpusInMask(1, &both), DLB_SUCCESS);  // borrows 1
  EXPECT_EQ(DLB_CheckCpuAvailability(1), DLB_SUCCESS);
  EXPECT_EQ(DLB_ReturnCpu(1), DLB_SUCCESS);
  EXPECT_EQ(DLB_AcquireCpus(DLB_DELETE_REQUESTS), DLB_NOUPDT);
  EXPECT_EQ(DLB_DROM_SetProcessMaskStr(child, "0-", DLB_DROM_FLAGS_NONE), DLB_ERR_NOENT);
  EXPECT_EQ(DLB_DROM_SetProcessMaskStr(child, "0", DLB_DROM_FLAGS_NONE), DLB_ERR_PERM);  // ours
  to_child.send('D');
  EXPECT_EQ(wait_child(child), 0);
  EXPECT_EQ(DLB_Finalize(), DLB_SUCCESS);
}

}  // namespace
