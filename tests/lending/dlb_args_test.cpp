// DLB_ARGS: DLB's options that joule gives DLB's meaning to are accepted,
// every other one is refused by name, through the environment (the config
// layer) and through DLB_Init's own string.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "dlb_args.hpp"
#include "joule/dlb.h"
#include "lending_support.hpp"

namespace {

using joule::lending::DlbArgs;

std::string refusal(const char* text) {
  try {
    DlbArgs().parse(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(DlbArgs, AcceptsDlbsFormsWithTheirMeaning) {
  DlbArgs a;
  a.parse("--lewi --lewi-keep-one-cpu --drom=yes --talp --barrier --ompt --mode=async --verbose");
  EXPECT_TRUE(a.lewi);
  EXPECT_TRUE(a.keep_one_cpu);
  EXPECT_TRUE(a.ompt);
  EXPECT_TRUE(a.async);
  EXPECT_EQ(a.verbose, "api");
  a.parse("--no-lewi --lewi-keep-one-cpu=no --mode=polling --verbose=no --quiet");
  EXPECT_FALSE(a.lewi);
  EXPECT_FALSE(a.keep_one_cpu);
  EXPECT_FALSE(a.async);
  EXPECT_EQ(a.verbose, "");
  EXPECT_TRUE(a.quiet);
}

TEST(DlbArgs, LewiMpiCalls) {
  using joule::lending::MpiCalls;
  DlbArgs a;
  EXPECT_EQ(a.lewi_mpi_calls, MpiCalls::all);
  a.parse("--lewi-mpi-calls=barrier");
  EXPECT_EQ(a.lewi_mpi_calls, MpiCalls::barrier);
  a.parse("--lewi-mpi-calls=Collectives");
  EXPECT_EQ(a.lewi_mpi_calls, MpiCalls::collectives);
  a.parse("--lewi-mpi-calls=none");
  EXPECT_EQ(a.lewi_mpi_calls, MpiCalls::none);
  EXPECT_NE(refusal("--lewi-mpi-calls=p2p").find("expected none, all, barrier or collectives"),
            std::string::npos);
}

TEST(DlbArgs, RefusesByName) {
  EXPECT_NE(refusal("--lewi --shmem-frobnicate").find("unknown option '--shmem-frobnicate'"),
            std::string::npos);
  EXPECT_NE(refusal("--frob").find("--lewi-keep-one-cpu"), std::string::npos);  // the allowed ones
  EXPECT_NE(refusal("--mngo").find("--mngo is not supported"), std::string::npos);
  EXPECT_NE(refusal("--drom=no").find("--drom=no is not supported"), std::string::npos);
  EXPECT_NE(refusal("--mode=turbo").find("--mode=turbo: expected polling or async"),
            std::string::npos);
  EXPECT_NE(refusal("--lewi=maybe").find("--lewi=maybe: expected yes, no"), std::string::npos);
  EXPECT_NE(refusal("lewi").find("'lewi' is not an option"), std::string::npos);
}

class DlbArgsInit : public lending_test::NodeLendingTest {
 protected:
  DlbArgsInit() : NodeLendingTest("dlbargs") {}
  void TearDown() override {
    unsetenv("DLB_ARGS");
    NodeLendingTest::TearDown();
  }
};

TEST_F(DlbArgsInit, BadInitStringFailsInitAndNamesTheOption) {
  testing::internal::CaptureStderr();
  EXPECT_EQ(DLB_Init(0, nullptr, "--lewi --no-such-thing"), DLB_ERR_NOCOMP);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("'--no-such-thing'"), std::string::npos);
  EXPECT_EQ(DLB_Finalize(), DLB_ERR_NOINIT);  // nothing was started
}

TEST_F(DlbArgsInit, BadEnvironmentFailsInit) {
  setenv("DLB_ARGS", "--mngo", 1);
  testing::internal::CaptureStderr();
  EXPECT_EQ(DLB_Init(0, nullptr, nullptr), DLB_ERR_NOCOMP);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("DLB_ARGS: --mngo"), std::string::npos);
}

TEST_F(DlbArgsInit, LewiOffMakesLewiVerbsSayNoLewi) {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  CPU_SET(0, &mask);
  ASSERT_EQ(DLB_Init(0, &mask, "--lewi=no"), DLB_SUCCESS);
  EXPECT_EQ(DLB_Lend(), DLB_ERR_NOLEWI);
  EXPECT_EQ(DLB_Borrow(), DLB_ERR_NOLEWI);
  EXPECT_STRNE(DLB_Strerror(DLB_ERR_NOLEWI), "Unknown error");
  EXPECT_EQ(DLB_Finalize(), DLB_SUCCESS);
  ASSERT_EQ(DLB_Init(0, &mask, nullptr), DLB_SUCCESS);  // the default: LeWI on
  EXPECT_GE(DLB_Lend(), 0);
  EXPECT_EQ(DLB_Finalize(), DLB_SUCCESS);
}

TEST_F(DlbArgsInit, LibjouleMpiReadsLewiMpiCalls) {
  int which = -1;
  ASSERT_EQ(joule_mpi_lend_calls(&which), JOULE_OK);
  EXPECT_EQ(which, JOULE_MPI_LEND_ALL);
  setenv("DLB_ARGS", "--lewi-mpi-calls=barrier", 1);
  ASSERT_EQ(joule_mpi_lend_calls(&which), JOULE_OK);
  EXPECT_EQ(which, JOULE_MPI_LEND_BARRIER);
  setenv("DLB_ARGS", "--lewi-mpi-calls=bogus", 1);
  EXPECT_EQ(joule_mpi_lend_calls(&which), JOULE_ERR_CONFIG);
}

TEST_F(DlbArgsInit, EnvironmentThenInitString) {
  setenv("DLB_ARGS", "--lewi=no", 1);
  cpu_set_t mask;
  CPU_ZERO(&mask);
  CPU_SET(0, &mask);
  ASSERT_EQ(DLB_Init(0, &mask, "--lewi"), DLB_SUCCESS);  // DLB_Init's string comes later
  EXPECT_GE(DLB_Lend(), 0);
  EXPECT_EQ(DLB_Finalize(), DLB_SUCCESS);
}

}  // namespace
