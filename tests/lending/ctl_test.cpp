// joule-ctl show / drom / clean against a table of this test's own.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "lending_support.hpp"
#include "lewi_session.hpp"

namespace {

using namespace joule::lending;
using namespace lending_test;

std::string ctl(const std::string& args) {
  std::string out;
  FILE* p = ::popen((std::string(JOULE_CTL) + " " + args + " 2>&1").c_str(), "r");
  char buf[512];
  while (p && std::fgets(buf, sizeof buf, p)) out += buf;
  const int rc = p ? ::pclose(p) : -1;
  return out + "[exit " + std::to_string(WEXITSTATUS(rc)) + "]";
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

}  // namespace
