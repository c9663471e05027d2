// The one temporary-directory helper of joule's tests.
//
//   joule_test::TempDir dir;            // $TMPDIR (or /tmp)/joule-<Suite>.<Test>-XXXXXX
//   joule_test::TempDir dir("trace");   // ...joule-<Suite>.<Test>-trace-XXXXXX
//   dir.path()                          // absolute path of the fresh directory
//   dir.file("x.conf")                  // path() + "/x.conf"
//   dir.files(".prv")                   // the files in it whose names end so
//
// The constructor makes a new, empty directory with mkdtemp(3) under $TMPDIR
// (when set and not empty; else /tmp). When it cannot, it throws
// std::system_error naming the template and errno's text: GoogleTest then
// fails the test (or the suite, from SetUpTestSuite) loudly, and no test can
// go on with a path it did not get (never "/tmp", never "", which would make
// root + "/sys/..." the machine's real sysfs). It never falls back to
// another directory: an unusable $TMPDIR is an error.
//
// The destructor removes the directory it created, and only that: the path
// is the one mkdtemp returned (fixed at construction), modes the test took
// away (a read-only directory) are given back first, symbolic links inside
// are removed, never followed. A forked child that returns through the
// destructor leaves the directory to the process that created it.
#pragma once

#if __has_include(<gtest/gtest.h>)
#include <gtest/gtest.h>
#define JOULE_TEMP_DIR_GTEST 1
#endif
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace joule_test {

class TempDir {
 public:
  TempDir() : TempDir(std::string_view{}) {}
  explicit TempDir(std::string_view tag) : owner_(::getpid()) {
    std::string tmpl = base() + "/" + prefix(tag) + "XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()) == nullptr) {
      const int err = errno;
      throw std::system_error(err, std::generic_category(),
                              "joule_test::TempDir: cannot create a directory from '" + tmpl +
                                  "' (set TMPDIR to a writable directory)");
    }
    path_ = std::filesystem::absolute(buf.data()).string();
  }
  ~TempDir() {
    if (::getpid() != owner_) return;  // a forked child: not its directory
    restore_modes(path_);
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(std::string_view name) const { return path_ + "/" + std::string(name); }
  // The files directly in the directory whose names end with `suffix`.
  std::vector<std::string> files(std::string_view suffix) const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(path_)) {
      const std::string p = e.path().string();
      if (p.size() >= suffix.size() &&
          p.compare(p.size() - suffix.size(), suffix.size(), suffix) == 0)
        out.push_back(p);
    }
    return out;
  }

  // Where new directories go: $TMPDIR when set and not empty, else /tmp.
  static std::string base() {
    const char* t = std::getenv("TMPDIR");
    return t && *t ? std::string(t) : std::string("/tmp");
  }

 private:
  // joule-<Suite>.<Test>[-tag]- from the running test, in [A-Za-z0-9._-].
  static std::string prefix(std::string_view tag) {
    std::string name = "joule-";
#ifdef JOULE_TEMP_DIR_GTEST
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    if (info) {
      name += std::string(info->test_suite_name()) + "." + info->name();
    } else if (const auto* suite = ::testing::UnitTest::GetInstance()->current_test_suite()) {
      name += suite->name();
    } else {
      name += "test";
    }
#else
    name += "test";
#endif
    if (!tag.empty()) name += "-" + std::string(tag);
    for (char& c : name)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'))
        c = '_';
    if (name.size() > 120) name.resize(120);
    return name + "-";
  }

  // Gives owner rwx back to every directory below `dir` (not through links),
  // so that remove_all can empty directories a test made read-only.
  static void restore_modes(const std::string& dir) {
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return;
    if ((st.st_mode & S_IRWXU) != S_IRWXU) ::chmod(dir.c_str(), st.st_mode | S_IRWXU);
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
      if (e.is_directory(ec) && !e.is_symlink(ec)) restore_modes(e.path().string());
  }

  pid_t owner_;
  std::string path_;
};

}  // namespace joule_test
