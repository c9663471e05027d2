// The process's life around the runtime, run in child processes (the
// program is lifecycle_child.cpp): exit() inside a task ends the process
// with its status on any worker, joule_finalize and a joule::runtime's
// destructor inside a task are refused without deadlock, and a bad setting
// at implicit start exits with status 1 and a message instead of aborting.
#include "child_process.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace {

using joule_test::ChildResult;
using joule_test::run_child;
using namespace std::chrono_literals;

ChildResult child(const std::string& mode, const std::string& workers,
                  std::vector<std::pair<std::string, std::string>> env = {}) {
  env.emplace_back("JOULE_WORKERS", workers);
  return run_child({LIFECYCLE_CHILD, mode}, env, 20s);
}

class ExitInTask : public ::testing::TestWithParam<int> {};

TEST_P(ExitInTask, FirstTaskExitStatusSeven) {
  const ChildResult r = child("exit-first", std::to_string(GetParam()));
  EXPECT_TRUE(r.exited && r.status == 7) << r.describe();
}

// The runtime already stopping (joule::runtime's destructor waits) when a
// nested task calls exit.
TEST_P(ExitInTask, ExitWhileStoppingStatusSeven) {
  const ChildResult r = child("exit-stopping", std::to_string(GetParam()));
  EXPECT_TRUE(r.exited && r.status == 7) << r.describe();
}

// Without inline execution at one worker: the task runs while the starting
// thread waits in taskwait.
TEST_P(ExitInTask, QueuedTaskExitStatusSeven) {
  const ChildResult r =
      child("exit-first", std::to_string(GetParam()), {{"JOULE_SERIAL_INLINE", "0"}});
  EXPECT_TRUE(r.exited && r.status == 7) << r.describe();
}

INSTANTIATE_TEST_SUITE_P(Workers, ExitInTask, ::testing::Values(1, 2, 4));

TEST(ExitInTaskWorker, OnAnotherWorkerStatusSeven) {
  for (const char* w : {"2", "4"}) {
    const ChildResult r = child("exit-worker", w);
    EXPECT_TRUE(r.exited && r.status == 7) << w << " workers: " << r.describe();
  }
}

TEST(FinalizeInTask, StateErrorAndProgramGoesOn) {
  for (const char* w : {"1", "2", "4"}) {
    const ChildResult r = child("finalize-in-task", w);
    EXPECT_TRUE(r.exited && r.status == 0) << w << " workers: " << r.describe();
    EXPECT_NE(r.output.find("finalize in task: 5"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("finalize outside: ok"), std::string::npos) << r.output;
  }
}

TEST(FinalizeInTask, RuntimeDestroyedInTaskIsReported) {
  const ChildResult r = child("runtime-in-task", "2");
  EXPECT_TRUE(r.exited && r.status == 0) << r.describe();
  EXPECT_NE(r.output.find("inside a task"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("after: 1"), std::string::npos) << r.output;
}

TEST(ImplicitStartError, BadSettingExitsOneWithMessage) {
  for (const auto& [key, value] :
       {std::pair<std::string, std::string>{"JOULE_WORKERS", "banana"}, {"JOULE_QUEUES", "fast"}}) {
    auto env = std::vector<std::pair<std::string, std::string>>{{key, value}};
    const ChildResult r = run_child({LIFECYCLE_CHILD, "implicit-start"}, env, 20s);
    EXPECT_TRUE(r.exited && r.status == 1) << key << ": " << r.describe();
    EXPECT_NE(r.output.find(key), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("terminate called"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("Abort"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("ran:"), std::string::npos) << r.output;
  }
}

TEST(ImplicitStartError, GoodSettingRuns) {
  const ChildResult r = child("implicit-start", "2");
  EXPECT_TRUE(r.exited && r.status == 0) << r.describe();
  EXPECT_NE(r.output.find("ran: 1"), std::string::npos) << r.output;
}

}  // namespace
