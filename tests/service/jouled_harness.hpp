// Runs the built jouled as root over a fake sysfs tree and a fake cgroup
// root, and clients as unprivileged users in forked children (setuid, an
// affinity mask, platform::service_client::Client), for the service tests.
#pragma once

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fake_tree.hpp"
#include "service_client.hpp"
#include "test_users.hpp"

namespace joule::test {

namespace ps = platform::service_client;

// A client child: drops to `user`, pins itself to `cpus`, says each request
// and writes each final answer line to a pipe; then exits (closing the
// connection) or, with hold, writes "ready" and waits to be killed. A gated
// child waits for open_gate() before it connects, so that the test can
// prepare what jouled will read about its pid (a fake /proc/PID/cgroup).
class ClientProc {
 public:
  ClientProc(const std::string& socket, const std::string& user, const std::vector<int>& cpus,
             const std::vector<std::string>& requests, bool hold, bool gated = false) {
    int p[2], g[2];
    if (::pipe(p) != 0 || ::pipe(g) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(p[0]);
      ::close(g[1]);
      char go = 0;
      if (gated && ::read(g[0], &go, 1) != 1) ::_exit(94);
      ::_exit(child(socket, user, cpus, requests, hold, p[1]));
    }
    ::close(p[1]);
    ::close(g[0]);
    fd_ = p[0];
    gate_ = g[1];
  }
  ~ClientProc() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    for (int fd : {fd_, gate_})
      if (fd >= 0) ::close(fd);
  }
  ClientProc(const ClientProc&) = delete;
  ClientProc& operator=(const ClientProc&) = delete;
  pid_t pid() const { return pid_; }
  void open_gate() {
    if (::write(gate_, "g", 1) != 1) ::kill(pid_, SIGKILL);  // next() then sees EOF
  }
  // The next answer line (without "\n"), or "" after 5 s / at EOF.
  std::string next() {
    std::string line;
    char c;
    for (;;) {
      pollfd pfd{fd_, POLLIN, 0};
      if (::poll(&pfd, 1, 5000) <= 0 || ::read(fd_, &c, 1) != 1) return line;
      if (c == '\n') return line;
      line += c;
    }
  }
  void kill9() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  // Waits for a non-holding child to finish; its exit status.
  int wait() {
    int st = 0;
    ::waitpid(pid_, &st, 0);
    pid_ = -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
  }

 private:
  static int child(const std::string& socket, const std::string& user, const std::vector<int>& cpus,
                   const std::vector<std::string>& requests, bool hold, int out) {
    const passwd* pw = ::getpwnam(user.c_str());
    if (!pw || ::setgroups(0, nullptr) != 0 || ::setgid(pw->pw_gid) != 0 ||
        ::setuid(pw->pw_uid) != 0)
      return 90;
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : cpus) CPU_SET(c, &set);
    if (!cpus.empty() && ::sched_setaffinity(0, sizeof set, &set) != 0) return 91;
    std::string why;
    auto client = ps::Client::connect(socket, 3000, &why);
    auto say = [&](const std::string& text) {
      const std::string l = text + "\n";
      return ::write(out, l.data(), l.size()) == ssize_t(l.size());
    };
    if (!client) return say("connect-failed " + why) ? 92 : 93;
    for (const auto& r : requests) {
      std::string err;
      auto req = ps::parse_line(r, &err);
      auto reply = req ? client->call(*req, &why) : std::nullopt;
      std::string text = reply ? reply->final.format() : "call-failed " + why + "\n";
      text.pop_back();
      say(text);
    }
    if (!hold) return 0;
    say("ready");
    for (;;) ::pause();
  }

  pid_t pid_ = -1;
  int fd_ = -1, gate_ = -1;
};

}  // namespace joule::test
