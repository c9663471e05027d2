// The machine is left as found: a child process changes frequencies in a
// fake cpufreq tree and dies by SIGINT, SIGTERM or SIGABRT (its handlers
// restore, then re-raise), by a crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL) or
// SIGUSR1/2 left at their default, by an exception, or by SIGKILL (the next
// start or `joule-ctl restore` repairs it from the state file).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

#include "cpufreq_child.hpp"
#include "restore_guard.hpp"

namespace joule::platform {
namespace {

using test::FakeTree;

using test::build_tree;
using test::lower_everything;
using test::spawn_child;
using test::start_cpufreq;

int state_files(const FakeTree& t) { return test::count_files(t.state_dir(), ".state"); }

class RestoreOnSignal : public testing::TestWithParam<int> {};

TEST_P(RestoreOnSignal, ChildKilledLeavesTreeExactlyAsItWas) {
  const int sig = GetParam();
  FakeTree t;
  build_tree(t);
  const auto before = t.snapshot();
  const pid_t pid = spawn_child(t, [] {
    for (;;) ::pause();
  });
  ASSERT_GT(pid, 0) << "child failed to start";
  EXPECT_NE(t.snapshot(), before);  // it did change the tree
  EXPECT_EQ(t.read(FakeTree::cpu_dir(0) + "/scaling_governor"), "userspace");
  EXPECT_EQ(state_files(t), 1);
  ::kill(pid, sig);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the handler must re-raise";
  EXPECT_EQ(WTERMSIG(status), sig);
  EXPECT_EQ(t.snapshot(), before);
  EXPECT_EQ(state_files(t), 0);
}

std::string signal_name(const testing::TestParamInfo<int>& p) {
  return p.param == SIGINT ? "SIGINT" : p.param == SIGTERM ? "SIGTERM" : "SIGABRT";
}

INSTANTIATE_TEST_SUITE_P(Signals, RestoreOnSignal, testing::Values(SIGINT, SIGTERM, SIGABRT),
                         signal_name);

// Deaths the program did not ask for: the child raises the signal itself
// (synchronously, as a crash would) after changing the tree.
class RestoreOnDeath : public testing::TestWithParam<int> {};

// A tool that handles the signal in this test process (a sanitizer's
// SIGSEGV handler) is inherited by the child, and joule leaves it alone.
// Read before any test runs: the in-process tests install joule's own.
const std::vector<bool> g_default_at_start = [] {
  std::vector<bool> out(NSIG);
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction old {};
    ::sigaction(sig, nullptr, &old);
    out[std::size_t(sig)] = !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL;
  }
  return out;
}();

bool left_at_default(int sig) { return g_default_at_start[std::size_t(sig)]; }

void expect_death_restores(int sig, void (*die)(int)) {
  FakeTree t;
  build_tree(t);
  const auto before = t.snapshot();
  const pid_t pid = spawn_child(t, [&] { die(sig); });
  ASSERT_GT(pid, 0) << "child failed to start";
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exited with " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), sig) << "the handler must re-raise the same signal";
  EXPECT_EQ(t.snapshot(), before);
  EXPECT_EQ(state_files(t), 0);
  EXPECT_EQ(test::count_files(t.state_dir(), ".owner"), 0);
}

TEST_P(RestoreOnDeath, RaisedInTheChild) {
  const int sig = GetParam();
  if (!left_at_default(sig)) GTEST_SKIP() << "this test process handles " << strsignal(sig);
  expect_death_restores(sig, [](int s) { ::raise(s); });
}

std::string death_name(const testing::TestParamInfo<int>& p) {
  switch (p.param) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGUSR1:
      return "SIGUSR1";
    default:
      return "SIGUSR2";
  }
}

INSTANTIATE_TEST_SUITE_P(Signals, RestoreOnDeath,
                         testing::Values(SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGUSR1, SIGUSR2),
                         death_name);

volatile std::uintptr_t g_null_address = 0;

// A real fault, not a raise(): the handler returns, the instruction runs
// again and faults with the default disposition back in place.
TEST(Restore, NullDereferenceInTheChild) {
  if (!left_at_default(SIGSEGV)) GTEST_SKIP() << "this test process handles SIGSEGV";
  expect_death_restores(SIGSEGV, [](int) {
    *reinterpret_cast<volatile int*>(g_null_address) = 1;
    std::_Exit(93);
  });
}

volatile sig_atomic_t g_caught = 0;

// A program's own handler of SIGUSR1 is left in place (the signal is a
// notification there, not a death): it runs, and the frequencies stay set.
TEST(Restore, ProgramsOwnSigusr1HandlerIsKept) {
  FakeTree t;
  build_tree(t);
  const std::string setspeed = FakeTree::cpu_dir(0) + "/scaling_setspeed";
  const pid_t pid = test::spawn_cpufreq_child(
      t,
      [] {
        struct sigaction sa {};
        sa.sa_handler = [](int) { g_caught = 1; };
        ::sigaction(SIGUSR1, &sa, nullptr);  // before joule's first change
        return lower_everything();
      },
      [&] {
        ::raise(SIGUSR1);
        std::_Exit(g_caught == 1 && t.read(setspeed) == "1200000" ? 0 : 94);
      });
  ASSERT_GT(pid, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(Restore, UncaughtExceptionInChild) {
  FakeTree t;
  build_tree(t);
  const auto before = t.snapshot();
  const pid_t pid = spawn_child(t, [] {
    // An exception that escapes a thread ends in std::terminate (gtest
    // would catch one thrown here on the main thread).
    std::thread([] { throw std::runtime_error("boom"); }).join();
  });
  ASSERT_GT(pid, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);  // std::terminate
  EXPECT_EQ(t.snapshot(), before);
}

TEST(Restore, ExceptionUnwindingTheRuntimeInProcess) {
  FakeTree t;
  build_tree(t);
  const auto before = t.snapshot();
  try {
    auto rt = start_cpufreq(t);
    lower_everything();
    EXPECT_NE(t.snapshot(), before);
    throw std::runtime_error("boom");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(t.snapshot(), before);
  EXPECT_EQ(state_files(t), 0);
}

TEST(Restore, SigkillLeftoversAreRepairedByTheNextStart) {
  FakeTree t;
  build_tree(t);
  const auto before = t.snapshot();
  const pid_t pid = spawn_child(t, [] {
    for (;;) ::pause();
  });
  ASSERT_GT(pid, 0);
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  EXPECT_NE(t.snapshot(), before);  // SIGKILL cannot be caught
  ASSERT_EQ(state_files(t), 1);
  testing::internal::CaptureStderr();
  {
    // The saved paths are under the fake tree: the repair must be told the
    // root, or it refuses them (they would not be cpufreq files).
    joule::runtime rt({{"JOULE_STATE_DIR", t.state_dir()},
                       {"JOULE_SYSFS_ROOT", t.root()},
                       {"JOULE_WORKERS", "1"}});
  }
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("restored"), std::string::npos) << err;
  EXPECT_EQ(t.snapshot(), before);
  EXPECT_EQ(state_files(t), 0);
}

TEST(Restore, SigkillLeftoversAreRepairedByJouleCtl) {
#ifndef JOULE_CTL_PATH
  GTEST_SKIP() << "joule-ctl is not built (JOULE_BUILD_APPS=OFF)";
#else
  FakeTree t;
  build_tree(t);
  const auto before = t.snapshot();
  const pid_t pid = spawn_child(t, [] {
    for (;;) ::pause();
  });
  ASSERT_GT(pid, 0);
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  ASSERT_EQ(state_files(t), 1);
  const std::string ctl = "JOULE_SYSFS_ROOT=" + t.root() + " " + std::string(JOULE_CTL_PATH) +
                          " restore --state-dir " + t.state_dir();
  EXPECT_EQ(std::system((ctl + " --dry-run > /dev/null").c_str()), 0);
  EXPECT_NE(t.snapshot(), before);  // a dry run changes nothing
  EXPECT_EQ(std::system((ctl + " > /dev/null").c_str()), 0);
  EXPECT_EQ(t.snapshot(), before);
  EXPECT_EQ(state_files(t), 0);
#endif
}

TEST(Restore, WithoutRootCpufreqFallsBackToEmulated) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to drop to an unprivileged user";
  FakeTree t;
  build_tree(t);
  ::chmod(t.root().c_str(), 0755);
  const auto before = t.snapshot();
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) std::_Exit(80);
    auto rt = start_cpufreq(t);  // the files are root's: not writable now
    Platform* p = current_platform();
    if (!p) std::_Exit(81);
    if (std::string(p->dvfs().name()) != "emulated") std::_Exit(82);
    std::_Exit(p->dvfs().set_frequency(p->workers().cpu(0), 1200000) ? 0 : 83);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(t.snapshot(), before);
}

TEST(Restore, LiveProcessStateIsLeftAlone) {
  FakeTree t;
  build_tree(t);
  const auto before = t.snapshot();
  const pid_t pid = spawn_child(t, [] {
    for (;;) ::pause();
  });
  ASSERT_GT(pid, 0);
  { joule::runtime rt({{"JOULE_STATE_DIR", t.state_dir()}, {"JOULE_WORKERS", "1"}}); }
  EXPECT_NE(t.snapshot(), before);  // still running: its changes stay
  EXPECT_EQ(state_files(t), 1);
  ::kill(pid, SIGTERM);
  ::waitpid(pid, nullptr, 0);
  EXPECT_EQ(t.snapshot(), before);
}

}  // namespace
}  // namespace joule::platform
