// A C program written against DLB (dlb_example.c) builds unchanged against
// joule: compiled with the C compiler on the build tree's DLB-named headers
// (include/joule/dlb, as pkg-config joule-dlb gives them), linked to
// libjoule, run with two processes on a private CPU table.
#include <gtest/gtest.h>

#include <string>

#include "lending_support.hpp"

namespace {

using namespace lending_test;

class DlbExample : public NodeLendingTest {
 protected:
  DlbExample() : NodeLendingTest("example") {}
};

TEST_F(DlbExample, DlbStyleCProgramBuildsAndRuns) {
  const std::string exe = std::string(JOULE_DLB_EXAMPLE_OUT) + "-" + std::to_string(::getpid());
  const std::string compile = std::string(JOULE_DLB_CC) + " -std=c11 -Wall -Werror -o " + exe +
                              " " + JOULE_DLB_EXAMPLE_SRC + " " + JOULE_DLB_CFLAGS + " -L" +
                              JOULE_DLB_LIBDIR + " -Wl,-rpath," + JOULE_DLB_LIBDIR + " -ljoule";
  EXPECT_EQ(build_and_run(compile, exe, "dlb_example: ok"), "");
}

}  // namespace
