// The access file: good files grant what they say and nothing more, each
// mistake is named with FILE:LINE and the allowed values, several entries
// add up, and a file others could write is refused.
#include "access_policy.hpp"

#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "temp_dir.hpp"

namespace joule::service {
namespace {

AccessPolicy parse_ok(const std::string& text) {
  std::string err;
  auto p = AccessPolicy::parse(text, "access.toml", &err);
  EXPECT_TRUE(p) << err;
  return p ? *p : *AccessPolicy::parse("", "empty", nullptr);
}

std::string parse_error(const std::string& text) {
  std::string err;
  EXPECT_FALSE(AccessPolicy::parse(text, "access.toml", &err)) << text;
  return err;
}

// A user that exists on any Debian system and is neither root nor in root's group.
const passwd& nobody() {
  static const passwd* pw = ::getpwnam("nobody");
  if (!pw) throw std::runtime_error("no user 'nobody'");
  return *pw;
}

TEST(AccessPolicy, EmptyFileDeniesEveryone) {
  const auto p = parse_ok("");
  const Grant g = p.grant_for(0, 0);
  EXPECT_EQ(g.controls, 0u);
  EXPECT_TRUE(g.because.empty());
  EXPECT_EQ(describe_grant(g), "nothing (no [[allow]] entry matches)");
}

TEST(AccessPolicy, UserEntryGrantsThatUserOnly) {
  const auto p = parse_ok(
      "# comment\n[[allow]]\nusers = [\"nobody\"]\ncontrols = [\"frequency\"]\n"
      "min_khz = 1200000\nmax_khz = 2400000\n");
  const Grant g = p.grant_for(nobody().pw_uid, nobody().pw_gid);
  EXPECT_EQ(g.controls, unsigned(kControlFrequency));
  EXPECT_TRUE(g.allows(kControlFrequency));
  EXPECT_FALSE(g.allows(kControlEnergy));
  EXPECT_EQ(g.min_khz, 1200000u);
  EXPECT_EQ(g.max_khz, 2400000u);
  ASSERT_EQ(g.because.size(), 1u);
  EXPECT_EQ(g.because[0], "access.toml:2");
  EXPECT_EQ(describe_grant(g),
            "controls=frequency min_khz=1200000 max_khz=2400000 (access.toml:2)");
  EXPECT_EQ(p.grant_for(0, 0).controls, 0u) << "root is not nobody";
  std::string err;
  EXPECT_EQ(p.grant_for_user("nobody", &err).controls, unsigned(kControlFrequency)) << err;
}

TEST(AccessPolicy, GroupEntryGrantsItsMembers) {
  const auto p = parse_ok("[[allow]]\ngroups = [\"root\"]\ncontrols = [\"energy\"]\n");
  const Grant g = p.grant_for(0, 0);
  EXPECT_EQ(g.controls, unsigned(kControlEnergy));
  EXPECT_EQ(g.min_khz, 0u);
  EXPECT_EQ(g.max_khz, 0u);
  EXPECT_EQ(p.grant_for(nobody().pw_uid, nobody().pw_gid).controls, 0u);
  std::string err;
  EXPECT_EQ(p.grant_for_user("root", &err).controls, unsigned(kControlEnergy)) << err;
}

TEST(AccessPolicy, UnknownUserIsAnError) {
  const auto p = parse_ok("[[allow]]\ngroups = [\"root\"]\ncontrols = [\"energy\"]\n");
  std::string err;
  EXPECT_EQ(p.grant_for_user("no-such-user-joule", &err).controls, 0u);
  EXPECT_NE(err.find("no such user 'no-such-user-joule'"), std::string::npos) << err;
}

TEST(AccessPolicy, SeveralEntriesGiveTheUnionAndWidestBounds) {
  const auto p = parse_ok(
      "[[allow]]\nusers = [\"root\"]\ncontrols = [\"frequency\"]\nmin_khz = 1600000\n"
      "max_khz = 2000000\n"
      "[[allow]]\ngroups = [\"root\"]\ncontrols = [\"energy\", \"frequency\"]\n"
      "min_khz = 1200000\nmax_khz = 1800000\n"
      "[[allow]]\nusers = [\"nobody\"]\ncontrols = [\"frequency\"]\nmax_khz = 3000000\n");
  const Grant g = p.grant_for(0, 0);
  EXPECT_EQ(g.controls, unsigned(kControlFrequency | kControlEnergy));
  EXPECT_EQ(g.min_khz, 1200000u);
  EXPECT_EQ(g.max_khz, 2000000u);
  EXPECT_EQ(g.because, (std::vector<std::string>{"access.toml:1", "access.toml:6"}));
}

TEST(AccessPolicy, AnUnboundedEntryMakesThatSideUnbounded) {
  const auto p = parse_ok(
      "[[allow]]\nusers = [\"root\"]\ncontrols = [\"frequency\"]\nmin_khz = 1600000\n"
      "max_khz = 2000000\n"
      "[[allow]]\nusers = [\"root\"]\ncontrols = [\"frequency\"]\nmax_khz = 1000000\n");
  const Grant g = p.grant_for(0, 0);
  EXPECT_EQ(g.min_khz, 0u);
  EXPECT_EQ(g.max_khz, 2000000u);
}

struct BadCase {
  const char* text;
  const char* expect;  // a substring of the message, after "access.toml:LINE: "
  int line;
};

TEST(AccessPolicy, EachMistakeIsNamedWithFileLineAndAllowedValues) {
  const BadCase cases[] = {
      {"[[allow]]\nusers = [\"root\"]\ncontrols = [\"energy\"]\ncolour = 1\n",
       "unknown key 'colour' in [[allow]] (allowed: users, groups, controls, min_khz, max_khz)", 4},
      {"[[allow]]\nusers = [\"root\"]\ncontrols = [\"x\"]\n",
       "unknown control \"x\" (allowed: frequency, energy)", 3},
      {"[[allow]]\ncontrols = [\"energy\"]\n", "names no one", 1},
      {"\n[[allow]]\nusers = []\ngroups = []\ncontrols = [\"energy\"]\n", "names no one", 2},
      {"[[allow]]\nusers = [\"root\"]\n", "has no controls (allowed: frequency, energy)", 1},
      {"[[allow]]\nusers = [\"root\"]\ncontrols = []\n", "at least one of: frequency, energy", 3},
      {"[[allow]]\nusers = [\"root\"]\ncontrols = [\"frequency\"]\nmin_khz = 3\nmax_khz = 2\n",
       "min_khz 3 is above max_khz 2", 1},
      {"[[allow]]\nusers = \"root\"\ncontrols = [\"energy\"]\n", "users must be an array", 2},
      {"[[allow]]\nusers = [1]\ncontrols = [\"energy\"]\n", "users must be an array of non-empty",
       2},
      {"[[allow]]\nusers = [\"root\"]\ncontrols = [\"energy\"]\nmin_khz = \"fast\"\n",
       "min_khz must be a positive integer", 4},
      {"[[allow]]\nusers = [\"root\"]\ncontrols = [\"energy\"]\nmax_khz = -5\n",
       "max_khz must be a positive integer", 4},
      {"[deny]\nusers = [\"root\"]\n", "unknown table or key 'deny' (allowed: [[allow]])", 1},
      {"[allow]\nusers = [\"root\"]\n", "must be an array of tables, written [[allow]]", 1},
      {"[[allow]]\nusers = [\"root\"\n", "", 2},  // TOML syntax: toml++'s own message
  };
  for (const auto& c : cases) {
    const std::string err = parse_error(c.text);
    const std::string prefix = "access.toml:" + std::to_string(c.line) + ": ";
    EXPECT_EQ(err.rfind(prefix, 0), 0u) << "want " << prefix << " got: " << err;
    EXPECT_NE(err.find(c.expect), std::string::npos) << "want " << c.expect << " got: " << err;
  }
}

class AccessFile : public ::testing::Test {
 protected:
  std::string write(const std::string& text, mode_t mode) {
    const std::string path = dir_.file("access.toml");
    std::ofstream(path) << text;
    EXPECT_EQ(::chmod(path.c_str(), mode), 0);
    return path;
  }
  joule_test::TempDir dir_;
};

const char* kGood = "[[allow]]\ngroups = [\"root\"]\ncontrols = [\"energy\"]\n";

TEST_F(AccessFile, RootOwnedFileLoads) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to own the file";
  std::string err;
  const auto p = AccessPolicy::load(write(kGood, 0644), &err);
  ASSERT_TRUE(p) << err;
  EXPECT_EQ(p->grant_for(0, 0).because.at(0), dir_.file("access.toml") + ":1");
}

TEST_F(AccessFile, WritableByOthersIsRefused) {
  std::string err;
  EXPECT_FALSE(AccessPolicy::load(write(kGood, 0666), &err));
  EXPECT_NE(err.find("access file must be owned by root and not writable by others"),
            std::string::npos)
      << err;
  EXPECT_FALSE(AccessPolicy::load(write(kGood, 0664), &err)) << "group-writable";
}

TEST_F(AccessFile, OwnedBySomeoneElseIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown";
  const std::string path = write(kGood, 0644);
  ASSERT_EQ(::chown(path.c_str(), nobody().pw_uid, nobody().pw_gid), 0);
  std::string err;
  EXPECT_FALSE(AccessPolicy::load(path, &err));
  EXPECT_NE(err.find("must be owned by root"), std::string::npos) << err;
}

TEST_F(AccessFile, SymlinkAndMissingFileAreRefused) {
  const std::string target = write(kGood, 0644);
  const std::string link = dir_.file("link.toml");
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  std::string err;
  EXPECT_FALSE(AccessPolicy::load(link, &err));
  EXPECT_NE(err.find("symbolic link"), std::string::npos) << err;
  EXPECT_FALSE(AccessPolicy::load(dir_.file("absent.toml"), &err));
  EXPECT_NE(err.find("absent.toml: cannot open"), std::string::npos) << err;
}

}  // namespace
}  // namespace joule::service
