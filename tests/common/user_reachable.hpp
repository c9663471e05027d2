// Build-tree files for a test that runs them as another user (setuid,
// setpriv). A clone in a folder only its owner may enter (0700, as /root or
// a private home gives) hides the build tree from that user: exec fails
// with "Permission denied" (exit 127). When a folder above one of the files
// is closed to others, the files, and the build-tree shared libraries
// `ldd` says they load, are copied into a fresh 0755 folder under $TMPDIR
// (or /tmp), removed with this object; run them from path(), with env()'s
// LD_LIBRARY_PATH (which wins over their RUNPATH into the build tree).
//
//   joule_test::UserReachable reach({ENERGY_BENCH_PATH});
//   if (!reach.usable()) GTEST_SKIP() << reach.why();
//   execve(reach.path(ENERGY_BENCH_PATH).c_str(), ...);
#pragma once

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "temp_dir.hpp"

namespace joule_test {

// True when a user who is neither owner nor in the group can read (and so
// load or run) `path`: every folder above it searchable by others.
inline bool others_can_reach(const std::string& path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::canonical(path, ec);
  if (ec) return false;
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0 || !(st.st_mode & S_IROTH)) return false;
  for (p = p.parent_path();; p = p.parent_path()) {
    if (::stat(p.c_str(), &st) != 0 || !(st.st_mode & S_IXOTH)) return false;
    if (p == p.root_path()) return true;
  }
}

// The shared libraries `ldd` resolves for `file` ("name => /path (...)").
inline std::vector<std::string> loaded_libraries(const std::string& file) {
  std::vector<std::string> out;
  const std::string cmd = "ldd '" + file + "' 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> p(::popen(cmd.c_str(), "r"), ::pclose);
  if (!p) return out;
  char line[4096];
  while (std::fgets(line, sizeof line, p.get())) {
    const std::string s = line;
    const auto arrow = s.find("=> /");
    if (arrow == std::string::npos) continue;
    const auto end = s.find(' ', arrow + 3);
    out.push_back(s.substr(arrow + 3, end - arrow - 3));
  }
  return out;
}

class UserReachable {
 public:
  explicit UserReachable(const std::vector<std::string>& files) {
    std::vector<std::string> hidden;
    for (const auto& f : files) {
      if (!others_can_reach(f)) hidden.push_back(f);
      for (const auto& lib : loaded_libraries(f))
        if (!others_can_reach(lib)) libs_.push_back(lib);
    }
    if (hidden.empty() && libs_.empty()) return;
    dir_ = std::make_unique<TempDir>("reach");
    ::chmod(dir_->path().c_str(), 0755);
    for (const auto& f : hidden) copies_[f] = copy(f);
    for (const auto& lib : libs_) copy(lib);
    if (!others_can_reach(dir_->path() + "/."))
      why_ = "the build tree and " + dir_->path() +
             " are closed to other users (a folder above them is not 0755 or o+x); "
             "set TMPDIR to a folder others can enter";
  }
  bool usable() const { return why_.empty(); }
  const std::string& why() const { return why_; }
  // Where the user can run or load `file` (the file itself when it could already).
  std::string path(const std::string& file) const {
    auto it = copies_.find(file);
    return it == copies_.end() ? file : it->second;
  }
  // "LD_LIBRARY_PATH=DIR" when build-tree libraries were copied, else "".
  std::string env() const {
    return libs_.empty() ? std::string() : "LD_LIBRARY_PATH=" + dir_->path();
  }
  // A folder the user can enter (to chdir to before exec), "/" if none was made.
  std::string dir() const { return dir_ ? dir_->path() : "/"; }

 private:
  std::string copy(const std::string& file) {
    const std::string to = dir_->file(std::filesystem::path(file).filename().string());
    std::error_code ec;
    std::filesystem::copy_file(file, to, std::filesystem::copy_options::overwrite_existing, ec);
    ::chmod(to.c_str(), 0755);
    if (ec) why_ = "cannot copy " + file + " to " + to + ": " + ec.message();
    return to;
  }

  std::unique_ptr<TempDir> dir_;
  std::map<std::string, std::string> copies_;
  std::vector<std::string> libs_;
  std::string why_;
};

}  // namespace joule_test
