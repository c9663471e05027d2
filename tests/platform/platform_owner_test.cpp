// Two DVFS processes on the same CPUs: the first to change a CPU owns it
// (a record next to the state files) and restores it; a second one leaves
// it alone, so it can neither save the first one's settings as originals
// nor write them back after the first has restored. A dead owner's record
// (pid gone, or reused: start time differs) is taken over.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "cpufreq_child.hpp"
#include "state_file.hpp"

namespace joule::platform {
namespace {

using test::FakeTree;

auto pause_forever() {
  return [] {
    for (;;) ::pause();
  };
}

void stop(pid_t pid) {
  ::kill(pid, SIGTERM);
  ::waitpid(pid, nullptr, 0);
}

void write_owner_record(const FakeTree& t, int cpu, long pid, unsigned long long start) {
  ::mkdir(t.state_dir().c_str(), 0700);
  const std::string path = t.state_dir() + "/joule-cpu" + std::to_string(cpu) + ".owner";
  std::ofstream(path) << pid << " " << start << "\n";
  ::chmod(path.c_str(), 0600);
}

TEST(CpuOwner, SecondProcessLeavesTheFirstOnesCpusAlone) {
  FakeTree t;
  test::build_tree(t);
  const auto before = t.snapshot();
  char a_got = 0, b_got = 0;
  const pid_t a = test::spawn_cpufreq_child(t, test::lower_everything, pause_forever(), &a_got);
  ASSERT_GT(a, 0);
  ASSERT_EQ(a_got, 'r') << "the first process sets every CPU";
  const auto pinned = t.snapshot();
  const pid_t b = test::spawn_cpufreq_child(t, test::lower_everything, pause_forever(), &b_got);
  ASSERT_GT(b, 0);
  EXPECT_EQ(b_got, 'h') << "the second process must not change CPUs the first one holds";
  // The first ends first and restores the true originals; the second must
  // not write the first one's settings back when it ends.
  stop(a);
  EXPECT_EQ(t.snapshot(), before);
  stop(b);
  EXPECT_EQ(t.snapshot(), before) << "CPUs left pinned at the first process's settings";
  EXPECT_NE(pinned, before);
  EXPECT_EQ(test::count_files(t.state_dir(), ".state"), 0);
  EXPECT_EQ(test::count_files(t.state_dir(), ".owner"), 0);
}

TEST(CpuOwner, KilledOwnersCpusAreRestoredAndTakenOver) {
  FakeTree t;
  test::build_tree(t);
  const auto before = t.snapshot();
  const pid_t a = test::spawn_child(t, pause_forever());
  ASSERT_GT(a, 0);
  ::kill(a, SIGKILL);  // no restore, records and state file stay
  ::waitpid(a, nullptr, 0);
  ASSERT_EQ(test::count_files(t.state_dir(), ".owner"), 4);
  {
    auto rt = test::start_cpufreq(t);
    EXPECT_EQ(t.snapshot(), before) << "the dead owner's originals go back first";
    EXPECT_EQ(test::lower_everything(), 'r');
  }
  EXPECT_EQ(t.snapshot(), before);
  EXPECT_EQ(test::count_files(t.state_dir(), ".owner"), 0);
}

TEST(CpuOwner, LiveOwnerRecordHoldsTheCpu) {
  FakeTree t;
  t.add_userspace_cpu(0, "0");
  const auto before = t.snapshot();
  const pid_t sleeper = ::fork();
  if (sleeper == 0) {
    for (;;) ::pause();
  }
  write_owner_record(t, 0, sleeper, process_start_time(sleeper));
  {
    auto rt = test::start_cpufreq(t);
    Platform* p = current_platform();
    ASSERT_NE(p, nullptr);
    EXPECT_FALSE(p->dvfs().set_frequency(0, 1200000));
    EXPECT_NE(p->dvfs().domain_note(0).find(std::to_string(sleeper)), std::string::npos)
        << p->dvfs().domain_note(0);
  }
  EXPECT_EQ(t.snapshot(), before);
  EXPECT_EQ(test::count_files(t.state_dir(), ".owner"), 1);  // still the sleeper's
  stop(sleeper);
}

TEST(CpuOwner, ReusedPidIsNotTheOwner) {
  FakeTree t;
  t.add_userspace_cpu(0, "0");
  const auto before = t.snapshot();
  const pid_t sleeper = ::fork();
  if (sleeper == 0) {
    for (;;) ::pause();
  }
  // The pid is alive, but it started at another time: not the owner.
  write_owner_record(t, 0, sleeper, process_start_time(sleeper) + 12345);
  {
    auto rt = test::start_cpufreq(t);
    Platform* p = current_platform();
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(p->dvfs().set_frequency(0, 1200000));
  }
  EXPECT_EQ(t.snapshot(), before);
  EXPECT_EQ(test::count_files(t.state_dir(), ".owner"), 0);
  stop(sleeper);
}

}  // namespace
}  // namespace joule::platform
