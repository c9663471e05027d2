// Programs of the kinds DLB ships as examples (tests/lending/dlb_examples:
// written here against DLB's API alone) built with the C compiler against
// the DLB-named headers and run across 2 and 4 processes on a private CPU
// table. Each checks what every process saw (CPUs gained and lost, the
// callbacks and their masks, barrier order) and prints "<name>: ok".
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "lending_support.hpp"

namespace {

using namespace lending_test;

class DlbBehaviour : public NodeLendingTest {
 protected:
  DlbBehaviour() : NodeLendingTest("behaviour") {}

  // Builds example `name` once per test and runs it with `args`.
  std::string run(const std::string& name, const std::string& args) {
    const std::string exe =
        std::string(JOULE_DLB_EXAMPLES_OUT) + "/" + name + "-" + std::to_string(::getpid());
    const std::string compile =
        std::string(JOULE_DLB_CC) + " -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -o " + exe +
        " " + JOULE_DLB_EXAMPLES_SRC + "/" + name + ".c " + JOULE_DLB_CFLAGS + " -L" +
        JOULE_DLB_LIBDIR + " -Wl,-rpath," + JOULE_DLB_LIBDIR + " -ljoule";
    const auto [rc_build, diag] = joule_test::run_status(compile);
    if (rc_build != 0) return compile + "\n" + diag;
    const auto [rc, out] = joule_test::run_status("timeout 90 " + exe + " " + args + " 2>&1");
    std::remove(exe.c_str());
    if (rc != 0 || out.find(name + ": ok") == std::string::npos)
      return name + " " + args + " exited " + std::to_string(rc) + ":\n" + out;
    return "";
  }
};

// Owners lend their CPU; consumers in async mode asked once for all CPUs
// and get each lent CPU by callback, then lose it when its owner reclaims.
TEST_F(DlbBehaviour, MaskConsumerTwoProcesses) { EXPECT_EQ(run("mask_consumer", "1 1"), ""); }
TEST_F(DlbBehaviour, MaskConsumerFourProcesses) { EXPECT_EQ(run("mask_consumer", "2 2"), ""); }

// The node barrier: nobody leaves a round before everyone entered it.
TEST_F(DlbBehaviour, NodeBarrierTwoProcesses) { EXPECT_EQ(run("node_barrier", "2 6"), ""); }
TEST_F(DlbBehaviour, NodeBarrierFourProcesses) { EXPECT_EQ(run("node_barrier", "4 6"), ""); }

// DROM: an administrator shrinks one process and gives the CPU to another
// (2: back to the same one); each target's DLB_PollDROM reports exactly its
// new mask (4: an observer reads them too).
TEST_F(DlbBehaviour, DromTwoProcesses) { EXPECT_EQ(run("drom", "2"), ""); }
TEST_F(DlbBehaviour, DromThreeProcesses) { EXPECT_EQ(run("drom", "3"), ""); }
TEST_F(DlbBehaviour, DromFourProcesses) { EXPECT_EQ(run("drom", "4"), ""); }

// A runtime that knows only a thread count (set_num_threads) grows on a
// lent CPU and shrinks back when its owner reclaims it.
TEST_F(DlbBehaviour, CustomRuntimeTwoProcesses) { EXPECT_EQ(run("lewi_custom_rt", "2"), ""); }
TEST_F(DlbBehaviour, CustomRuntimeFourProcesses) { EXPECT_EQ(run("lewi_custom_rt", "4"), ""); }

}  // namespace
