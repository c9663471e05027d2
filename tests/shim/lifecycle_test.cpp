// A joulecc-translated C program (programs/lifecycle.c) run as a child
// process with a deadline: exit() inside a task ends the process with its
// status at 1, 2 and 4 workers; joule_finalize inside a task is refused; a
// bad setting at the first task exits with status 1 and a message naming
// the key, never abort() and a core dump.
#include "child_process.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace {

using joule_test::ChildResult;
using joule_test::run_child;
using namespace std::chrono_literals;

ChildResult child(const std::string& mode, const std::string& workers) {
  return run_child({SHIM_LIFECYCLE_PROGRAM, mode}, {{"JOULE_WORKERS", workers}}, 20s);
}

TEST(ShimLifecycle, ExitInTaskStatusSeven) {
  for (const char* w : {"1", "2", "4"}) {
    const ChildResult r = child("exit", w);
    EXPECT_TRUE(r.exited && r.status == 7) << w << " workers: " << r.describe();
  }
}

TEST(ShimLifecycle, FinalizeInTaskIsStateError) {
  for (const char* w : {"1", "2", "4"}) {
    const ChildResult r = child("finalize", w);
    EXPECT_TRUE(r.exited && r.status == 0) << w << " workers: " << r.describe();
    EXPECT_NE(r.output.find("finalize in task: 5"), std::string::npos) << r.output;
  }
}

TEST(ShimLifecycle, BadSettingExitsOneWithMessage) {
  const ChildResult r = child("run", "banana");
  EXPECT_TRUE(r.exited && r.status == 1) << r.describe();
  EXPECT_NE(r.output.find("JOULE_WORKERS"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("Abort"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("ran:"), std::string::npos) << r.output;
}

TEST(ShimLifecycle, GoodSettingRuns) {
  const ChildResult r = child("run", "2");
  EXPECT_TRUE(r.exited && r.status == 0) << r.describe();
  EXPECT_NE(r.output.find("ran: 1"), std::string::npos) << r.output;
}

}  // namespace
