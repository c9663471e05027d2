// DLB's subprocess API (dlb_sp.h, docs/dlb-api.md): several handles in one
// process, each a participant of the node table with its own CPUs, hints
// and callbacks, lending and borrowing between each other and with the
// process's own DLB_Init participant.
#include <gtest/gtest.h>

#include <set>

#include "joule/dlb/dlb_sp.h"
#include "lending_support.hpp"

namespace {

using namespace lending_test;

struct Seen {
  std::set<int> enabled, disabled;
};

void on_enable(int cpu, void* arg) { static_cast<Seen*>(arg)->enabled.insert(cpu); }
void on_disable(int cpu, void* arg) { static_cast<Seen*>(arg)->disabled.insert(cpu); }

cpu_set_t one_cpu(int cpu) {
  cpu_set_t m;
  CPU_ZERO(&m);
  CPU_SET(cpu, &m);
  return m;
}

class DlbSp : public NodeLendingTest {
 protected:
  DlbSp() : NodeLendingTest("sp") {}
  // A handle owning `cpu` whose enable/disable callbacks record into seen.
  dlb_handler_t open(int cpu, Seen& seen) {
    const cpu_set_t m = one_cpu(cpu);
    dlb_handler_t h = DLB_Init_sp(0, &m, nullptr);
    EXPECT_NE(h, nullptr);
    if (!h) return h;
    EXPECT_EQ(DLB_CallbackSet_sp(h, dlb_callback_enable_cpu,
                                 reinterpret_cast<dlb_callback_t>(on_enable), &seen),
              DLB_SUCCESS);
    EXPECT_EQ(DLB_CallbackSet_sp(h, dlb_callback_disable_cpu,
                                 reinterpret_cast<dlb_callback_t>(on_disable), &seen),
              DLB_SUCCESS);
    return h;
  }
};

TEST_F(DlbSp, TwoHandlesLendAndBorrowBetweenEachOther) {
  Seen sa, sb;
  dlb_handler_t a = open(0, sa), b = open(1, sb);
  ASSERT_TRUE(a && b);
  ASSERT_NE(a, b);
  dlb_callback_t cb = nullptr;
  void* arg = nullptr;
  ASSERT_EQ(DLB_CallbackGet_sp(b, dlb_callback_enable_cpu, &cb, &arg), DLB_SUCCESS);
  EXPECT_EQ(arg, &sb);  // each handle its own callbacks
  EXPECT_EQ(DLB_CheckCpuAvailability_sp(a, 0), DLB_SUCCESS);
  EXPECT_EQ(DLB_CheckCpuAvailability_sp(a, 1), DLB_ERR_PERM);  // b's
  EXPECT_EQ(DLB_BorrowCpu_sp(a, 1), DLB_ERR_PERM);             // busy
  // b lends its CPU, a borrows it.
  EXPECT_EQ(DLB_LendCpu_sp(b, 1), DLB_SUCCESS);
  EXPECT_EQ(DLB_BorrowCpu_sp(a, 1), DLB_SUCCESS);
  EXPECT_EQ(sa.enabled, std::set<int>{1});
  EXPECT_EQ(DLB_CheckCpuAvailability_sp(a, 1), DLB_SUCCESS);
  // b reclaims it: pending until a's next call gives it back.
  EXPECT_EQ(DLB_ReclaimCpu_sp(b, 1), DLB_NOTED);
  EXPECT_EQ(DLB_CheckCpuAvailability_sp(a, 1), DLB_ERR_PERM);
  EXPECT_EQ(sa.disabled, std::set<int>{1});
  EXPECT_EQ(DLB_CheckCpuAvailability_sp(b, 1), DLB_SUCCESS);
  EXPECT_EQ(sb.enabled, std::set<int>{1});
  // The other way round, whole and by mask: a lends all, b borrows all.
  EXPECT_EQ(DLB_Lend_sp(a), DLB_SUCCESS);
  EXPECT_EQ(DLB_Borrow_sp(b), DLB_SUCCESS);
  EXPECT_EQ(sb.enabled, (std::set<int>{0, 1}));
  EXPECT_EQ(DLB_Return_sp(b), DLB_SUCCESS);
  EXPECT_EQ(DLB_Reclaim_sp(a), DLB_SUCCESS);
  const cpu_set_t m1 = one_cpu(1);
  EXPECT_EQ(DLB_LendCpuMask_sp(b, &m1), DLB_SUCCESS);
  EXPECT_EQ(DLB_AcquireCpusInMask_sp(a, 1, &m1), DLB_SUCCESS);
  EXPECT_EQ(DLB_ReturnCpu_sp(a, 1), DLB_SUCCESS);
  EXPECT_EQ(DLB_AcquireCpu_sp(b, 1), DLB_SUCCESS);  // its own again
  EXPECT_EQ(DLB_Finalize_sp(a), DLB_SUCCESS);
  EXPECT_EQ(DLB_Finalize_sp(b), DLB_SUCCESS);
}

TEST_F(DlbSp, HintsAndLifetimeArePerHandle) {
  Seen sa, sb;
  dlb_handler_t a = open(0, sa), b = open(1, sb);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(DLB_Disable_sp(a), DLB_SUCCESS);
  EXPECT_EQ(DLB_Lend_sp(a), DLB_ERR_DISBLD);
  EXPECT_EQ(DLB_Lend_sp(b), DLB_SUCCESS);  // b is not disabled
  EXPECT_EQ(DLB_Enable_sp(a), DLB_SUCCESS);
  EXPECT_EQ(DLB_SetMaxParallelism_sp(a, 1), DLB_SUCCESS);
  EXPECT_EQ(DLB_UnsetMaxParallelism_sp(a), DLB_SUCCESS);
  // A CPU has one owner: a third handle cannot own a's.
  const cpu_set_t m0 = one_cpu(0);
  EXPECT_EQ(DLB_Init_sp(0, &m0, nullptr), nullptr);
  // The handles are not the process's DLB_Init participant.
  EXPECT_EQ(DLB_Lend(), DLB_ERR_NOINIT);
  char value[256];
  EXPECT_EQ(DLB_GetVariable_sp(a, "--lewi", value), DLB_SUCCESS);
  EXPECT_EQ(DLB_SetVariable_sp(a, "--lewi", "no"), DLB_ERR_PERM);
  int n = -1;
  EXPECT_EQ(DLB_PollDROM_sp(b, &n, nullptr), DLB_NOUPDT);
  EXPECT_EQ(DLB_Finalize_sp(a), DLB_SUCCESS);
  // A finalised or null handle: DLB_ERR_NOINIT, never a crash.
  for (dlb_handler_t h : {a, static_cast<dlb_handler_t>(nullptr)}) {
    EXPECT_EQ(DLB_Lend_sp(h), DLB_ERR_NOINIT);
    EXPECT_EQ(DLB_Finalize_sp(h), DLB_ERR_NOINIT);
    EXPECT_EQ(DLB_CallbackGet_sp(h, dlb_callback_enable_cpu, nullptr, nullptr), DLB_ERR_NOINIT);
    EXPECT_EQ(DLB_GetVariable_sp(h, "--lewi", value), DLB_ERR_NOINIT);
  }
  // a's CPU went back to the table: a new handle may own it.
  dlb_handler_t c = DLB_Init_sp(0, &m0, nullptr);
  EXPECT_NE(c, nullptr);
  EXPECT_EQ(DLB_Finalize_sp(c), DLB_SUCCESS);
  EXPECT_EQ(DLB_Finalize_sp(b), DLB_SUCCESS);
}

// A handle beside the process's own participant: they lend to each other.
TEST_F(DlbSp, HandleBesideTheProcess) {
  const cpu_set_t m0 = one_cpu(0);
  ASSERT_EQ(DLB_Init(0, &m0, nullptr), DLB_SUCCESS);
  Seen sh;
  dlb_handler_t h = open(1, sh);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(DLB_LendCpu_sp(h, 1), DLB_SUCCESS);
  EXPECT_EQ(DLB_BorrowCpu(1), DLB_SUCCESS);
  EXPECT_EQ(DLB_ReturnCpu(1), DLB_SUCCESS);
  EXPECT_EQ(DLB_Lend(), DLB_SUCCESS);
  EXPECT_EQ(DLB_BorrowCpu_sp(h, 0), DLB_SUCCESS);
  EXPECT_EQ(sh.enabled, (std::set<int>{0}));
  EXPECT_EQ(DLB_Finalize_sp(h), DLB_SUCCESS);  // gives CPU 0 back to the process
  EXPECT_EQ(DLB_ReclaimCpu(0), DLB_SUCCESS);
  EXPECT_EQ(DLB_Finalize(), DLB_SUCCESS);
}

}  // namespace
