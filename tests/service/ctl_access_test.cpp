// joule-ctl access check USER: a granted user's controls, bounds and the
// matching entries; a user no entry names gets "nothing"; an unknown user
// and a refused file are errors (exit 1), a missing USER a usage error.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "temp_dir.hpp"

namespace {

struct CtlRun {
  int rc = -1;
  std::string out;
};

CtlRun run(const std::string& args) {
  CtlRun r;
  FILE* p = ::popen((std::string(JOULE_CTL_PATH) + " access " + args + " 2>&1").c_str(), "r");
  char buf[512];
  while (p && std::fgets(buf, sizeof buf, p)) r.out += buf;
  const int st = p ? ::pclose(p) : -1;
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

TEST(CtlAccess, PrintsWhatAUserMayDoAndWhy) {
  if (::geteuid() != 0) GTEST_SKIP() << "the access file must be root's: run as root";
  joule_test::TempDir dir;
  const std::string file = dir.file("access.toml");
  FILE* f = std::fopen(file.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("[[allow]]\nusers = [\"root\"]\ncontrols = [\"frequency\"]\nmin_khz = 1200000\n", f);
  std::fclose(f);
  CtlRun r = run("check root --access " + file);
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("controls=frequency min_khz=1200000 max_khz=none"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("matched:   " + file + ":1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("energy:    no"), std::string::npos) << r.out;
  r = run("check daemon --access " + file);
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("nothing"), std::string::npos) << r.out;
  r = run("check no-such-user-here --access " + file);
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("no such user"), std::string::npos) << r.out;
  ::chmod(file.c_str(), 0666);
  r = run("check root --access " + file);
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find(file), std::string::npos) << r.out;
  EXPECT_EQ(run("check").rc, 2);
}

}  // namespace
