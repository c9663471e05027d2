// The machine is left as found: a child process changes frequencies in a
// fake cpufreq tree and dies by SIGINT, SIGTERM or SIGABRT (its handlers
// restore, then re-raise), by an exception, or by SIGKILL (the next start
// or `joule-ctl restore` repairs it from the state file).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "fake_tree.hpp"
#include "joule/joule.hpp"
#include "platform.hpp"
#include "restore_guard.hpp"

namespace joule::platform {
namespace {

using test::FakeTree;

// Two per-core userspace policies and one shared intel_pstate-like policy.
void build_tree(FakeTree& t) {
  t.add_userspace_cpu(0, "0");
  t.add_userspace_cpu(1, "1");
  t.add_pstate_cpu(2, "2-3");
  t.add_pstate_cpu(3, "2-3");
}

joule::runtime start_cpufreq(const FakeTree& t) {
  return joule::runtime({{"JOULE_DVFS", "cpufreq"},
                         {"JOULE_ENERGY_POLICY", "none"},  // the test sets frequencies
                         {"JOULE_SYSFS_ROOT", t.root()},
                         {"JOULE_STATE_DIR", t.state_dir()},
                         {"JOULE_WORKERS", "1"}});
}

void lower_everything() {
  Platform* p = current_platform();
  if (!p) std::_Exit(90);
  for (int cpu = 0; cpu < 4; ++cpu)
    if (!p->dvfs().set_frequency(cpu, 1200000)) std::_Exit(91);
}

// Forks a child that starts joule on the tree, lowers every frequency,
// reports ready, then runs `then`. Returns the child's pid.
template <class Then>
pid_t spawn_child(const FakeTree& t, Then then) {
  int fds[2];
  if (::pipe(fds) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    rlimit none{0, 0};
    ::setrlimit(RLIMIT_CORE, &none);  // SIGABRT: no core file
    auto rt = start_cpufreq(t);
    lower_everything();
    if (::write(fds[1], "r", 1) != 1) std::_Exit(92);
    then();
    std::_Exit(0);
  }
  ::close(fds[1]);
  char c = 0;
  const bool ready = ::read(fds[0], &c, 1) == 1;
  ::close(fds[0]);
  return ready ? pid : -pid;
}

int state_files(const FakeTree& t) {
  int n = 0;
  std::error_code ec;
  for (auto& e : std::filesystem::directory_iterator(t.state_dir(), ec))
    n += e.path().extension() == ".state";
  return n;
}

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
    std::_Exit(p->dvfs().set_frequency(p->worker_cpu(0), 1200000) ? 0 : 83);
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
