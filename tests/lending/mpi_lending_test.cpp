// mpirun -np 2 with libjoule-mpi, linked and by LD_PRELOAD, on loopback.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "lending_support.hpp"
#include "run_command.hpp"

namespace {

std::string run(const std::string& cmd) { return joule_test::run_command(cmd); }

// Open MPI's defaults otherwise: libjoule-mpi sets the yield setting itself
// (lending_mpi_yield_test checks that).
std::string mpirun(const std::string& shm, const std::string& extra, const char* exe) {
  return run(std::string("OMPI_MCA_btl=self,vader "
                         "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ") +
             JOULE_MPIEXEC + " -np 2 --oversubscribe --bind-to core -x JOULE_LENDING=node" +
             " -x JOULE_LENDING_SHM=" + shm + " " + extra + " " + exe);
}

class MpiLending : public ::testing::Test {
 protected:
  void SetUp() override {
    if (lending_test::online_cpus() < 2) GTEST_SKIP() << "needs 2 CPUs";
  }
  lending_test::ShmGuard shm_{lending_test::unique_shm("mpi")};
};

TEST_F(MpiLending, LinkedInterpositionLendsInBarrier) {
  const std::string out = mpirun(shm_.name, "", JOULE_MPI_PROBE_LINKED);
  EXPECT_NE(out.find("MPI-LENDING OK"), std::string::npos) << out;
  EXPECT_NE(out.find("[exit 0]"), std::string::npos) << out;
}

TEST_F(MpiLending, PreloadedInterpositionLendsInBarrier) {
  const std::string out =
      mpirun(shm_.name, std::string("-x LD_PRELOAD=") + JOULE_MPI_LIB, JOULE_MPI_PROBE_PLAIN);
  EXPECT_NE(out.find("MPI-LENDING OK"), std::string::npos) << out;
  EXPECT_NE(out.find("[exit 0]"), std::string::npos) << out;
}

TEST_F(MpiLending, PilsRunsWithLending) {
#ifndef JOULE_PILS
  GTEST_SKIP() << "pils is not built (JOULE_BUILD_APPS=OFF)";
#else
  const std::string out =
      mpirun(shm_.name, "", JOULE_PILS " --loads 25,75 --unit-ms 1 --iterations 2");
  EXPECT_NE(out.find("RESULT ranks=2"), std::string::npos) << out;
  EXPECT_NE(out.find("[exit 0]"), std::string::npos) << out;
  // The loaded rank's tasks are all queued when the other rank enters its
  // barrier: some of them must still run on the CPU lent there.
  const std::size_t at = out.find("borrowed_tasks=");
  ASSERT_NE(at, std::string::npos) << out;
  EXPECT_GT(std::atol(out.c_str() + at + 15), 0L) << out;
#endif
}

}  // namespace
