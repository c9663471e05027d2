// joule-ctl show / drom / clean against a table of this test's own.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

#include "cpu_table.hpp"
#include "lending_support.hpp"
#include "lewi_session.hpp"

namespace {

using namespace joule::lending;
using namespace lending_test;

std::string ctl_cmd(const std::string& command) {
  std::string out;
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  char buf[512];
  while (p && std::fgets(buf, sizeof buf, p)) out += buf;
  const int rc = p ? ::pclose(p) : -1;
  return out + "[exit " + std::to_string(WEXITSTATUS(rc)) + "]";
}

std::string ctl(const std::string& args) { return ctl_cmd(std::string(JOULE_CTL) + " " + args); }

// ctl() run as user nobody (setpriv), for errors a root test cannot cause.
std::string ctl_as_nobody(const std::string& args) {
  return ctl_cmd("/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups " +
                 std::string(JOULE_CTL) + " " + args);
}

LewiOptions opts(const std::string& shm) {
  LewiOptions o;
  o.shm = shm;
  return o;
}

TEST(JouleCtl, ShowDromClean) {
  if (online_cpus() < 2) GTEST_SKIP() << "needs 2 CPUs";
  ShmGuard g(unique_shm("ctl"));
  EXPECT_NE(ctl("show --shm " + g.name).find("no CPU table"), std::string::npos);
  Channel to_parent;
  const pid_t child = fork_child([&] {
    auto s = Session::join(opts(g.name), {1});
    CHILD_CHECK(s->lend_cpu(1) == Outcome::Done);
    to_parent.send('L');
    std::vector<int> mask;
    CHILD_CHECK(eventually([&] { return s->poll_mask(mask); }));
    to_parent.send(char('0' + mask.size()));
    for (;;) ::pause();  // killed below: leaves a stale table behind
  });
  ASSERT_EQ(to_parent.recv(), 'L');
  const std::string show = ctl("show --shm " + g.name);
  EXPECT_NE(show.find("idle"), std::string::npos) << show;
  EXPECT_NE(show.find(std::to_string(child)), std::string::npos) << show;
  EXPECT_NE(show.find("owns [1]"), std::string::npos) << show;
  EXPECT_NE(ctl("drom " + std::to_string(child) + " 0-1 --shm " + g.name).find("owns [0-1]"),
            std::string::npos);
  EXPECT_EQ(to_parent.recv(), '2');
  EXPECT_NE(ctl("drom 1 0 --shm " + g.name).find("not registered"), std::string::npos);
  EXPECT_NE(ctl("drom x y").find("[exit 2]"), std::string::npos);
  EXPECT_NE(ctl("clean " + g.name).find("in use"), std::string::npos);
  ::kill(child, SIGKILL);
  wait_child(child);
  EXPECT_NE(ctl("show --shm " + g.name).find("[dead]"), std::string::npos);
  EXPECT_NE(ctl("clean " + g.name).find("removed"), std::string::npos);
  EXPECT_NE(ctl("show --shm " + g.name).find("no CPU table"), std::string::npos);
}

// `drom PID none` to a process with a runtime could never be acknowledged
// (worker 0 never parks): refused at once, exit 1, the rule named; a valid
// request right after it is acknowledged.
TEST(JouleCtl, DromWithoutWorkerZerosCpuIsRefused) {
  if (online_cpus() < 2) GTEST_SKIP() << "needs 2 CPUs";
  ShmGuard g(unique_shm("ctl-home"));
  Channel to_parent, to_child;
  const pid_t child = fork_child([&] {
    auto s = Session::join(opts(g.name), {0, 1});
    s->attach_runtime(true);
    s->set_home_cpu(0);
    to_parent.send('J');
    std::vector<int> mask;
    while (to_child.recv(1) != 'Q') {
      s->poll_mask(mask);
      if (s->must_return(1)) s->wait_for_change(1, 1000);
    }
  });
  ASSERT_EQ(to_parent.recv(), 'J');
  const std::string pid = std::to_string(child);
  for (const char* cpus : {"none", "1"}) {
    const std::string out = ctl("drom " + pid + " " + cpus + " --timeout 5000 --shm " + g.name);
    EXPECT_NE(out.find("worker 0"), std::string::npos) << out;
    EXPECT_NE(out.find("[exit 1]"), std::string::npos) << out;
  }
  const std::string out = ctl("drom " + pid + " 0 --timeout 5000 --shm " + g.name);
  EXPECT_NE(out.find("owns [0]"), std::string::npos) << out;
  EXPECT_NE(out.find("[exit 0]"), std::string::npos) << out;
  to_child.send('Q');
  EXPECT_EQ(wait_child(child), 0);
}

// Unknown options are errors, not table names; --timeout names what it
// expects instead of std::stoul's "stoul".
TEST(JouleCtl, BadOptionsAreUsageErrors) {
  std::string out = ctl("clean --bogus");
  EXPECT_NE(out.find("unknown option --bogus"), std::string::npos) << out;
  EXPECT_NE(out.find("[exit 2]"), std::string::npos) << out;
  out = ctl("drom 1 0 --timeout abc");
  EXPECT_NE(out.find("--timeout abc: expected milliseconds, an integer 0..3600000"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("stoul"), std::string::npos) << out;
  EXPECT_NE(out.find("[exit 2]"), std::string::npos) << out;
}

// `show --all` and `clean` without names include the table JOULE_LENDING_SHM
// names, whatever its name.
TEST(JouleCtl, AllTablesIncludeTheCustomOne) {
  ShmGuard g("/joule-ctl-custom-" + std::to_string(::getpid()));
  auto t = CpuTable::open_shared(g.name);
  ASSERT_TRUE(t);
  const std::string env = "JOULE_LENDING_SHM=" + g.name + " ";
  std::string out = ctl_cmd(env + JOULE_CTL + " show --all");
  EXPECT_NE(out.find(g.name), std::string::npos) << out;
  t.reset();
  out = ctl_cmd(env + JOULE_CTL + " clean ");
  EXPECT_NE(out.find(g.name + ": removed"), std::string::npos) << out;
}

// A table clean cannot remove (here: another user's) is a failure, exit 1,
// even with --force.
TEST(JouleCtl, CleanFailsWhenItCannotRemove) {
  if (::geteuid() != 0 || ::access("/usr/bin/setpriv", X_OK) != 0)
    GTEST_SKIP() << "needs root and setpriv to act as another user";
  ShmGuard g(unique_shm("perm"));
  auto t = CpuTable::open_shared(g.name);
  ASSERT_TRUE(t);
  const std::string out = ctl_as_nobody("clean --force " + g.name);
  EXPECT_NE(out.find("[exit 1]"), std::string::npos) << out;
}

}  // namespace
