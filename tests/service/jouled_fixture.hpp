// The fixture of jouled's end-to-end tests: the built daemon as root over a
// fake sysfs tree (FakeTree) and a fake cgroup root, clients as test users
// (jouled_harness.hpp). Shared by jouled_test.cpp and jouled_limits_test.cpp.
#pragma once

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "fuzz_lines.hpp"
#include "jouled_harness.hpp"
#include "temp_dir.hpp"

namespace joule::test {

enum class Layout { pairs, singles, shared };  // {0,1}{2,3} / each CPU / {0,1} 2 3

class JouledTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "jouled's tests run the daemon as root (uid 0)";
    if (!ensure_user(kUser) || !ensure_user(kOther))
      GTEST_SKIP() << "cannot create the test users " << kUser << ", " << kOther << " (useradd)";
    cpu_set_t set;
    if (::sched_getaffinity(0, sizeof set, &set) != 0 || !CPU_ISSET(0, &set) || !CPU_ISSET(1, &set))
      GTEST_SKIP() << "needs CPUs 0 and 1 in this process's affinity";
    tree_ = std::make_unique<FakeTree>();
    // The clients (other users) reach the socket through these folders.
    ::chmod(tree_->root().c_str(), 0755);
    root_ = tree_->root();
    // A socket path has at most 107 bytes (sun_path): a folder of its own with
    // a one-letter tag, so the path stays short however deep the tree is.
    sock_dir_ = std::make_unique<joule_test::TempDir>("s");
    ::chmod(sock_dir_->path().c_str(), 0755);
    socket_ = sock_dir_->file("s");
    if (socket_.size() > 107)
      GTEST_SKIP() << "socket path " << socket_ << " is over 107 bytes; set TMPDIR shorter";
    state_ = root_ + "/jstate";
    access_ = root_ + "/access.toml";
    tree_->write("/cg/cpuset/cpuset.effective_cpus", "0-3\n");
    write_access(std::string("[[allow]]\nusers = [\"") + kUser +
                 "\"]\ncontrols = [\"frequency\", \"energy\"]\n");
  }
  void TearDown() override {
    stop();  // the daemon first: sock_dir_'s destructor then removes the folder and the socket
  }

  void build(Layout l) {
    for (int c = 0; c < 4; ++c) {
      std::string rel = std::to_string(c);
      if (l == Layout::pairs || (l == Layout::shared && c < 2)) rel = c < 2 ? "0 1" : "2 3";
      tree_->add_userspace_cpu(c, rel);
      tree_->write(
          "/sys/devices/system/cpu/cpu" + std::to_string(c) + "/topology/physical_package_id",
          "0\n", 0444);
    }
    before_ = tree_->snapshot();
  }
  void write_access(const std::string& text, mode_t mode = 0644) {
    tree_->write("/access.toml", text, mode);
  }
  std::string file(int cpu, const std::string& name) {
    std::string v = tree_->read(FakeTree::cpu_dir(cpu) + "/" + name);
    while (!v.empty() && v.back() == '\n') v.pop_back();
    return v;
  }

  // Starts jouled; false if its socket did not come up within 5 s.
  // `listen_fd` >= 0: passed as systemd does (fd 3, LISTEN_PID, LISTEN_FDS).
  bool start(std::vector<std::string> extra = {}, int listen_fd = -1) {
    log_ = root_ + "/jouled." + std::to_string(++starts_) + ".log";
    daemon_ = ::fork();
    if (daemon_ == 0) {
      const int fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      ::dup2(fd, 2);
      if (listen_fd >= 0) {
        ::dup2(listen_fd, 3);
        ::setenv("LISTEN_PID", std::to_string(::getpid()).c_str(), 1);
        ::setenv("LISTEN_FDS", "1", 1);
      }
      std::vector<std::string> args = {
          JOULED_PATH, "--foreground", "--sysfs-root", root_,  "--socket",      socket_,
          "--access",  access_,        "--state-dir",  state_, "--cgroup-root", root_ + "/cg"};
      args.insert(args.end(), extra.begin(), extra.end());
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    exited_ = -1;
    return eventually(
               [&] {
                 int st = 0;
                 if (::waitpid(daemon_, &st, WNOHANG) == daemon_) {  // refused to start
                   daemon_ = -1;
                   exited_ = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
                   return true;
                 }
                 std::string why;
                 return ps::Client::connect(socket_, 200, &why) != nullptr;
               },
               5000) &&
           daemon_ > 0;
  }
  // Exit status of a jouled that stopped (on its own: bad files), or -1.
  int exit_status() {
    if (daemon_ <= 0) return exited_;
    int st = 0;
    if (::waitpid(daemon_, &st, 0) != daemon_) return -1;
    daemon_ = -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }
  int stop(int sig = SIGTERM) {
    if (daemon_ <= 0) return -1;
    ::kill(daemon_, sig);
    const int rc = exit_status();
    return rc;
  }
  std::string log() const { return slurp_file(log_); }
  ClientProc client(std::vector<int> cpus, std::vector<std::string> reqs, bool hold = true,
                    const std::string& user = kUser) {
    return ClientProc(socket_, user, cpus, reqs, hold);
  }
  // A connection jouled sees as `uid`'s (SO_PEERCRED reports the effective
  // uid at connect(2)); -1 if it fails.
  int connect_as(uid_t uid) {
    if (::seteuid(uid) != 0) return -1;
    const int fd = fuzz_connect(socket_);
    if (::seteuid(0) != 0) std::abort();  // the rest of the test needs root
    return fd;
  }
  bool restored(int ms = 1000) {
    return eventually([&] { return tree_->snapshot() == before_; }, ms);
  }

  std::unique_ptr<FakeTree> tree_;
  std::unique_ptr<joule_test::TempDir> sock_dir_;
  std::string root_, socket_, state_, access_, log_;
  FakeTree::Snapshot before_;
  pid_t daemon_ = -1;
  int starts_ = 0, exited_ = -1;
};

// What comes back on fd within `ms` (until EOF or silence).
inline std::string read_for(int fd, int ms) {
  std::string got;
  char buf[256];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, ms) <= 0) break;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    got.append(buf, std::size_t(n));
  }
  return got;
}

}  // namespace joule::test
