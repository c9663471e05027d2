// DLB_DROM_PreInit / DLB_DROM_PostFinalize / DLB_PreInit (docs/dlb-api.md):
// a launcher registers its child's pid with a mask before the child execs;
// the child's DLB_Init takes the registration and its CPUs; PostFinalize
// frees what a child that never finalised left in the node table.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "joule/dlb/dlb_drom.h"
#include "lending_support.hpp"

namespace {

using namespace lending_test;

cpu_set_t one_cpu(int cpu) {
  cpu_set_t m;
  CPU_ZERO(&m);
  CPU_SET(cpu, &m);
  return m;
}

bool registered(pid_t pid) {
  int pids[64], n = 0;
  if (DLB_DROM_GetPidList(pids, &n, 64) != DLB_SUCCESS) return false;
  return std::find(pids, pids + n, pid) != pids + n;
}

// Forks a child that waits for `go`, then execs this binary running only
// `child_case` (or, with child_case null, exits at once).
pid_t launch(Channel& go, const char* child_case) {
  return fork_child([&go, child_case] {
    if (go.recv() != 'g') ::_exit(2);
    if (!child_case) ::_exit(0);
    ::setenv("LENDING_TEST_PREINIT_CHILD", "1", 1);
    const std::string filter = std::string("--gtest_filter=") + child_case;
    ::execl("/proc/self/exe", "lending_dlb_preinit_test", filter.c_str(), nullptr);
    ::_exit(127);
  });
}

class DlbPreInit : public NodeLendingTest {
 protected:
  DlbPreInit() : NodeLendingTest("preinit") {}
  // The launcher itself is in the table (CPU 0), so that it outlives the child.
  void SetUp() override {
    NodeLendingTest::SetUp();
    if (IsSkipped()) return;
    const cpu_set_t m0 = one_cpu(0);
    ASSERT_EQ(DLB_Init(0, &m0, nullptr), DLB_SUCCESS);
  }
  void TearDown() override {
    DLB_Finalize();
    NodeLendingTest::TearDown();
  }
};

TEST_F(DlbPreInit, ChildTakesTheRegistrationOfItsLauncher) {
  Channel go;
  const pid_t child = launch(go, "DlbPreInitChild.OwnsThePreInitMask");
  const cpu_set_t m1 = one_cpu(1);
  ASSERT_EQ(DLB_DROM_PreInit(child, &m1, DLB_DROM_FLAGS_NONE, nullptr), DLB_SUCCESS);
  EXPECT_EQ(DLB_DROM_PreInit(child, &m1, DLB_DROM_FLAGS_NONE, nullptr), DLB_ERR_INIT);
  EXPECT_TRUE(registered(child));
  EXPECT_EQ(DLB_BorrowCpu(1), DLB_ERR_PERM);  // the child's, busy
  go.send('g');
  EXPECT_EQ(wait_child(child), 0);
  // Its DLB_Finalize left the table: nothing for PostFinalize.
  EXPECT_FALSE(registered(child));
  EXPECT_EQ(DLB_DROM_PostFinalize(child, DLB_DROM_FLAGS_NONE), DLB_NOUPDT);
}

TEST_F(DlbPreInit, PostFinalizeFreesWhatAChildLeft) {
  Channel go;
  const pid_t child = launch(go, nullptr);  // exits without DLB_Init
  const cpu_set_t m1 = one_cpu(1);
  ASSERT_EQ(DLB_DROM_PreInit(child, &m1, DLB_DROM_FLAGS_NONE, nullptr), DLB_SUCCESS);
  go.send('g');
  EXPECT_EQ(wait_child(child), 0);
  EXPECT_EQ(DLB_DROM_PostFinalize(child, DLB_DROM_FLAGS_NONE), DLB_SUCCESS);
  EXPECT_FALSE(registered(child));
  // CPU 1 is free again: another child may have it.
  Channel go2;
  const pid_t next = launch(go2, nullptr);
  EXPECT_EQ(DLB_DROM_PreInit(next, &m1, DLB_DROM_FLAGS_NONE, nullptr), DLB_SUCCESS);
  go2.send('g');
  EXPECT_EQ(wait_child(next), 0);
  EXPECT_EQ(DLB_DROM_PostFinalize(next, DLB_DROM_FLAGS_NONE), DLB_SUCCESS);
}

TEST_F(DlbPreInit, BadRequests) {
  const cpu_set_t m0 = one_cpu(0), m1 = one_cpu(1);
  cpu_set_t none;
  CPU_ZERO(&none);
  Channel go;
  const pid_t child = launch(go, nullptr);
  EXPECT_EQ(DLB_DROM_PreInit(child, &m0, DLB_DROM_FLAGS_NONE, nullptr), DLB_ERR_PERM);  // ours
  EXPECT_FALSE(registered(child));
  EXPECT_EQ(DLB_DROM_PreInit(child, &none, DLB_DROM_FLAGS_NONE, nullptr), DLB_ERR_NOENT);
  EXPECT_EQ(DLB_DROM_PreInit(::getpid(), &m1, DLB_DROM_FLAGS_NONE, nullptr), DLB_ERR_INIT);
  go.send('g');
  EXPECT_EQ(wait_child(child), 0);
  EXPECT_EQ(DLB_DROM_PreInit(child, &m1, DLB_DROM_FLAGS_NONE, nullptr), DLB_ERR_NOPROC);  // gone
}

// joule never steals a CPU (DLB_STEAL_CPUS changes nothing), so a process
// never has stolen CPUs to recover.
TEST_F(DlbPreInit, NothingIsStolenSoNothingToRecover) {
  const cpu_set_t m0 = one_cpu(0);
  Channel go;
  const pid_t child = launch(go, nullptr);
  EXPECT_EQ(
      DLB_DROM_PreInit(child, &m0, dlb_drom_flags_t(DLB_STEAL_CPUS | DLB_RETURN_STOLEN), nullptr),
      DLB_ERR_PERM);
  cpu_set_t mine;
  ASSERT_EQ(DLB_DROM_GetProcessMask(0, &mine, DLB_DROM_FLAGS_NONE), DLB_SUCCESS);
  EXPECT_TRUE(CPU_ISSET(0, &mine));
  EXPECT_EQ(DLB_DROM_RecoverStolenCpus(::getpid()), DLB_NOUPDT);
  go.send('g');
  EXPECT_EQ(wait_child(child), 0);
  EXPECT_EQ(DLB_DROM_RecoverStolenCpus(child), DLB_ERR_NOPROC);  // never registered
}

class DlbPreInitSelf : public NodeLendingTest {
 protected:
  DlbPreInitSelf() : NodeLendingTest("preself") {}
};

// DLB_PreInit: the process registers itself; DLB_Init without a mask takes it.
TEST_F(DlbPreInitSelf, InitTakesThePreInitMask) {
  EXPECT_EQ(DLB_DROM_RecoverStolenCpus(::getpid()), DLB_ERR_NOSHMEM);  // no table yet
  const cpu_set_t m1 = one_cpu(1);
  ASSERT_EQ(DLB_PreInit(&m1, nullptr), DLB_SUCCESS);
  ASSERT_EQ(DLB_Init(0, nullptr, nullptr), DLB_SUCCESS);
  EXPECT_EQ(DLB_CheckCpuAvailability(1), DLB_SUCCESS);
  EXPECT_EQ(DLB_CheckCpuAvailability(0), DLB_ERR_PERM);
  EXPECT_EQ(DLB_PreInit(&m1, nullptr), DLB_ERR_INIT);
  EXPECT_EQ(DLB_Finalize(), DLB_SUCCESS);
}

// The child side of ChildTakesTheRegistrationOfItsLauncher, run after exec
// (skipped in a plain run): the table and its name come from the launcher.
TEST(DlbPreInitChild, OwnsThePreInitMask) {
  if (!std::getenv("LENDING_TEST_PREINIT_CHILD")) GTEST_SKIP() << "run by the launcher test";
  ASSERT_EQ(DLB_Init(0, nullptr, nullptr), DLB_SUCCESS);
  EXPECT_EQ(DLB_CheckCpuAvailability(1), DLB_SUCCESS);
  EXPECT_EQ(DLB_CheckCpuAvailability(0), DLB_ERR_PERM);  // the launcher's
  EXPECT_EQ(DLB_Finalize(), DLB_SUCCESS);
}

}  // namespace
