// DLB's Fortran headers (dlbf.h, dlbf_drom.h, dlbf_talp.h) as a Fortran
// program uses them: dlb_fortran.f90 compiled with gfortran on the build
// tree's include/joule/dlb, linked to libjoule and run on a private CPU
// table; the headers also compile as fixed-form source. Skipped (with a
// message) where gfortran is missing.
#include <gtest/gtest.h>

#include <string>

#include "lending_support.hpp"

namespace {

using namespace lending_test;

class DlbFortran : public NodeLendingTest {
 protected:
  DlbFortran() : NodeLendingTest("fortran") {}
  void SetUp() override {
    NodeLendingTest::SetUp();
    if (std::string(JOULE_DLB_FC).empty()) GTEST_SKIP() << "gfortran not found: Fortran not tested";
  }
  static std::string fc(const std::string& args) {
    return std::string(JOULE_DLB_FC) + " -Wall -I" + JOULE_DLB_INCLUDE + " " + args;
  }
};

TEST_F(DlbFortran, ProgramBuildsAndRuns) {
  const std::string exe = std::string(JOULE_DLB_FORTRAN_OUT) + "-" + std::to_string(::getpid());
  const std::string compile = fc("-o " + exe + " " + JOULE_DLB_FORTRAN_SRC + " -L" +
                                 JOULE_DLB_LIBDIR + " -Wl,-rpath," + JOULE_DLB_LIBDIR + " -ljoule");
  EXPECT_EQ(build_and_run(compile, exe, "dlb_fortran: ok"), "");
}

TEST_F(DlbFortran, HeadersCompileAsFixedForm) {
  const std::string cmd = fc(std::string("-ffixed-form -fsyntax-only ") + JOULE_DLB_FORTRAN_FIXED);
  const auto [rc, diag] = joule_test::run_status(cmd);
  EXPECT_EQ(rc, 0) << cmd << "\n" << diag;
}

}  // namespace
