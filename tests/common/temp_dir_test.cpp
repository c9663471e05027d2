// The tests' temporary-directory helper (temp_dir.hpp) and temp_file: a fresh
// directory named after the test under $TMPDIR, removed with everything in
// it (read-only parts included, links not followed), left alone by a forked
// child, and a loud failure, never a fallback, when $TMPDIR is unusable.
#include "temp_dir.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <system_error>

#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using joule_test::TempDir;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(TempDir, MakesAFreshEmptyDirectoryNamedAfterTheTest) {
  TempDir a, b("tagged");
  EXPECT_NE(a.path(), b.path());
  for (const TempDir* d : {&a, &b}) {
    ASSERT_TRUE(fs::is_directory(d->path())) << d->path();
    EXPECT_TRUE(fs::is_empty(d->path())) << d->path();
    EXPECT_TRUE(fs::path(d->path()).is_absolute()) << d->path();
    EXPECT_EQ(fs::path(d->path()).parent_path(), fs::path(TempDir::base())) << d->path();
  }
  const std::string name = fs::path(a.path()).filename().string();
  EXPECT_EQ(name.rfind("joule-TempDir.MakesAFreshEmptyDirectoryNamedAfterTheTest-", 0), 0u) << name;
  EXPECT_NE(fs::path(b.path()).filename().string().find("-tagged-"), std::string::npos) << b.path();
  EXPECT_EQ(a.file("x.conf"), a.path() + "/x.conf");
}

TEST(TempDir, GoesUnderTmpdir) {
  TempDir outer;
  joule_test::scoped_env env("TMPDIR", outer.path());
  TempDir inner;
  EXPECT_EQ(fs::path(inner.path()).parent_path(), fs::path(outer.path()));
  std::ofstream(inner.file("a.prv")) << "x";
  std::ofstream(inner.file("b.json")) << "y";
  EXPECT_EQ(inner.files(".prv"), std::vector<std::string>{inner.file("a.prv")});
}

TEST(TempDir, RemovesItsWholeTreeButNothingALinkPointsTo) {
  TempDir outside;
  const std::string kept = outside.file("kept");
  std::ofstream(kept) << "still here";
  std::string path;
  {
    TempDir d;
    path = d.path();
    fs::create_directories(d.file("a/b"));
    std::ofstream(d.file("a/b/f")) << "data";
    fs::create_symlink(kept, d.file("link"));
    fs::create_directory_symlink(outside.path(), d.file("dirlink"));
    ASSERT_EQ(::chmod(d.file("a/b").c_str(), 0500), 0);  // read-only, as a test may leave it
    ASSERT_EQ(::chmod(d.file("a").c_str(), 0), 0);
  }
  EXPECT_FALSE(fs::exists(path)) << path;
  EXPECT_EQ(slurp(kept), "still here");
  struct stat st {};
  ASSERT_EQ(::stat(outside.path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u) << "the link's target kept its mode";
}

TEST(TempDir, AForkedChildLeavesTheDirectoryToItsCreator) {
  auto d = std::make_unique<TempDir>();
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    d.reset();  // the child's copy of the object goes away
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(fs::is_directory(d->path()));
  const std::string path = d->path();
  d.reset();
  EXPECT_FALSE(fs::exists(path));
}

// An unusable $TMPDIR is an error naming the directory and errno's text:
// the constructor throws (GoogleTest fails the test), no directory is made
// anywhere else.
void expect_refused(const std::string& tmpdir, int err) {
  joule_test::scoped_env env("TMPDIR", tmpdir);
  try {
    TempDir d;
    ADD_FAILURE() << "TMPDIR=" << tmpdir << " accepted: " << d.path();
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), err) << e.what();
    const std::string what = e.what();
    EXPECT_NE(what.find(tmpdir + "/joule-TempDir."), std::string::npos) << what;
    EXPECT_NE(what.find(std::strerror(err)), std::string::npos) << what;
  }
}

TEST(TempDir, RefusesAnUnusableTmpdirWithoutFallingBack) {
  TempDir scratch;
  expect_refused(scratch.file("missing"), ENOENT);
  std::ofstream(scratch.file("plain")) << "a file, not a directory";
  expect_refused(scratch.file("plain"), ENOTDIR);
  if (::geteuid() != 0) {  // root writes through modes
    fs::create_directory(scratch.file("ro"));
    ASSERT_EQ(::chmod(scratch.file("ro").c_str(), 0555), 0);
    expect_refused(scratch.file("ro"), EACCES);
  }
  EXPECT_FALSE(fs::exists(scratch.file("missing")));
  EXPECT_EQ(std::distance(fs::directory_iterator(scratch.path()), fs::directory_iterator()),
            ::geteuid() != 0 ? 2 : 1)
      << "nothing new in the scratch directory";
}

TEST(TempFile, HoldsItsContentsAndGoesAwayWithItsDirectory) {
  std::string path;
  {
    joule_test::temp_file f("JOULE_WORKERS=2\n");
    path = f.path();
    EXPECT_EQ(slurp(path), "JOULE_WORKERS=2\n");
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(fs::path(path).parent_path()));
}

}  // namespace
