// Helpers for the lending tests: a unique shared-memory name per test (so
// tests never touch a real user's table and can run in parallel), forked
// children that report failures through their exit code, and pipes to step
// two processes in lock-step.
#pragma once

#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <joule/joule.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>

#include "run_command.hpp"
#include "test_support.hpp"

namespace lending_test {

inline std::string unique_shm(const char* tag) {
  static std::atomic<int> counter{0};
  return "/joule-test-" + std::string(tag) + "-" + std::to_string(::getpid()) + "-" +
         std::to_string(counter.fetch_add(1));
}

// Unlinks the segment when the test ends, whatever happened.
struct ShmGuard {
  std::string name;
  explicit ShmGuard(std::string n) : name(std::move(n)) { ::shm_unlink(name.c_str()); }
  ~ShmGuard() { ::shm_unlink(name.c_str()); }
};

// In a child: a failed check prints and exits with status 1.
#define CHILD_CHECK(cond)                                                                    \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      std::fprintf(stderr, "child %d: %s:%d: check failed: %s\n", int(::getpid()), __FILE__, \
                   __LINE__, #cond);                                                         \
      ::_exit(1);                                                                            \
    }                                                                                        \
  } while (0)

// Runs fn in a child process; the child exits 0 when fn returns.
inline pid_t fork_child(const std::function<void()>& fn) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    fn();
    ::_exit(0);
  }
  return pid;
}

// The child's exit status (0 = passed), or -signal if it was killed.
inline int wait_child(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return -1000;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return -WTERMSIG(status);
  return -1001;
}

// One-way byte channel; recv waits at most timeout_ms (returns 0 on timeout).
class Channel {
 public:
  Channel() {
    if (::pipe(fd_) != 0) std::abort();
  }
  ~Channel() {
    ::close(fd_[0]);
    ::close(fd_[1]);
  }
  void send(char c) {
    if (::write(fd_[1], &c, 1) != 1) std::abort();
  }
  char recv(int timeout_ms = 20000) {
    pollfd p{fd_[0], POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) != 1) return 0;
    char c = 0;
    return ::read(fd_[0], &c, 1) == 1 ? c : 0;
  }

 private:
  int fd_[2];
};

// Burns ms milliseconds of CPU time on the calling thread (CPU time, not
// wall time: the test machine may be shared).
inline void spin_ms(int ms) {
  timespec t0{}, t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
  volatile double x = 0;
  do {
    for (int i = 0; i < 10000; ++i) x = x + 1.0;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  } while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

// Compiles a program with `compile`, runs `exe` and removes it: "" when
// it printed `ok_line` and exited 0, else what went wrong.
inline std::string build_and_run(const std::string& compile, const std::string& exe,
                                 const std::string& ok_line) {
  const auto [rc_build, diag] = joule_test::run_status(compile);
  if (rc_build != 0) return compile + "\n" + diag;
  const auto [rc, out] = joule_test::run_status(exe);
  std::remove(exe.c_str());
  if (rc != 0 || out.find(ok_line) == std::string::npos)
    return exe + " exited " + std::to_string(rc) + ":\n" + out;
  return "";
}

inline bool pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return ::sched_setaffinity(0, sizeof set, &set) == 0;
}

inline int online_cpus() { return int(::sysconf(_SC_NPROCESSORS_ONLN)); }

// Polls cond() until it holds or timeout_ms passes; returns the last value
// (tests/common's eventually, with the timeout in milliseconds).
template <class Cond>
bool eventually(Cond&& cond, int timeout_ms = 20000) {
  return joule_test::eventually(std::forward<Cond>(cond), std::chrono::milliseconds(timeout_ms));
}

// Restores the process's affinity at scope exit (tests pin themselves).
class AffinityGuard {
 public:
  AffinityGuard() { ::sched_getaffinity(0, sizeof set_, &set_); }
  ~AffinityGuard() { ::sched_setaffinity(0, sizeof set_, &set_); }

 private:
  cpu_set_t set_;
};

// A test with node-wide lending on a private segment, restoring the
// environment, the affinity mask and any lending session afterwards.
class NodeLendingTest : public ::testing::Test {
 protected:
  explicit NodeLendingTest(const char* tag) : shm_{unique_shm(tag)} {}
  void SetUp() override {
    if (online_cpus() < 2) GTEST_SKIP() << "needs 2 CPUs";
    ::setenv("JOULE_LENDING_SHM", shm_.name.c_str(), 1);
    ::setenv("JOULE_LENDING", "node", 1);
    ::unsetenv("JOULE_CPUS");
  }
  void TearDown() override {
    while (joule_lending_stop() == JOULE_OK) {
    }
    ::unsetenv("JOULE_LENDING_SHM");
    ::unsetenv("JOULE_LENDING");
  }
  AffinityGuard affinity_;
  ShmGuard shm_;
};

}  // namespace lending_test
