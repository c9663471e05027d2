// Runs a program as a child process with a deadline: a child that hangs is
// killed, so the test fails instead of hanging until ctest's timeout.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace joule_test {

struct ChildResult {
  bool timed_out = false;
  bool exited = false;  // ended by exit/return (status valid), not by a signal
  int status = -1;      // exit status
  int signal = 0;       // the signal that ended it
  std::string output;   // stdout and stderr together
  std::string describe() const {
    std::string s = timed_out ? "timed out (killed)"
                    : exited  ? "exit " + std::to_string(status)
                              : "signal " + std::to_string(signal);
    return s + "; output:\n" + output;
  }
};

namespace detail {

// In the child: output to the pipe, the environment extended, then exec.
[[noreturn]] inline void exec_child(int out_fd, const std::vector<std::string>& argv,
                                    const std::vector<std::pair<std::string, std::string>>& env) {
  ::dup2(out_fd, 1);
  ::dup2(out_fd, 2);
  ::close(out_fd);
  for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  ::execv(args[0], args.data());
  ::_exit(127);
}

}  // namespace detail

// argv[0] is the program's path. env: variables set in the child on top of
// this process's environment.
inline ChildResult run_child(const std::vector<std::string>& argv,
                             const std::vector<std::pair<std::string, std::string>>& env,
                             std::chrono::milliseconds limit) {
  ChildResult r;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return r;
  const pid_t pid = ::fork();
  if (pid < 0) return r;
  if (pid == 0) {
    ::close(fds[0]);
    detail::exec_child(fds[1], argv, env);
  }
  ::close(fds[1]);
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int wstatus = 0;
  bool reaped = false;
  for (;;) {
    pollfd p{fds[0], POLLIN, 0};
    if (::poll(&p, 1, 20) > 0) {
      char buf[4096];
      const ssize_t n = ::read(fds[0], buf, sizeof buf);
      if (n > 0) r.output.append(buf, std::size_t(n));
    }
    if (!reaped && ::waitpid(pid, &wstatus, WNOHANG) == pid) reaped = true;
    if (reaped) {
      // Drain what is left (the pipe's writers are gone or about to be).
      char buf[4096];
      ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
      for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
        r.output.append(buf, std::size_t(n));
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &wstatus, 0);
      r.timed_out = true;
      break;
    }
  }
  ::close(fds[0]);
  if (!r.timed_out && WIFEXITED(wstatus)) {
    r.exited = true;
    r.status = WEXITSTATUS(wstatus);
  } else if (!r.timed_out && WIFSIGNALED(wstatus)) {
    r.signal = WTERMSIG(wstatus);
  }
  return r;
}

}  // namespace joule_test
