// A C program written against DLB (dlb_example.c) builds unchanged against
// joule: compiled with the C compiler on the build tree's DLB-named headers
// (include/joule/dlb, as pkg-config joule-dlb gives them), linked to
// libjoule, run with two processes on a private CPU table.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "lending_support.hpp"

namespace {

using namespace lending_test;

std::string run(const std::string& cmd, int& rc) {
  std::string out;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) {
    rc = -1;
    return out;
  }
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  rc = ::pclose(p);
  return out;
}

class DlbExample : public NodeLendingTest {
 protected:
  DlbExample() : NodeLendingTest("example") {}
};

TEST_F(DlbExample, DlbStyleCProgramBuildsAndRuns) {
  const std::string exe = std::string(JOULE_DLB_EXAMPLE_OUT) + "-" + std::to_string(::getpid());
  const std::string compile = std::string(JOULE_DLB_CC) + " -std=c11 -Wall -Werror -o " + exe +
                              " " + JOULE_DLB_EXAMPLE_SRC + " " + JOULE_DLB_CFLAGS + " -L" +
                              JOULE_DLB_LIBDIR + " -Wl,-rpath," + JOULE_DLB_LIBDIR + " -ljoule";
  int rc = 0;
  const std::string diag = run(compile, rc);
  ASSERT_EQ(rc, 0) << compile << "\n" << diag;
  const std::string out = run(exe, rc);
  std::remove(exe.c_str());
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("dlb_example: ok"), std::string::npos) << out;
}

}  // namespace
