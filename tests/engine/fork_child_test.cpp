// fork() while joule runs: the child has only the forking thread, so it
// gives the parent's runtime up (runtime.cpp, forget_runtime_in_child) and
// may run joule again with a runtime of its own, or exit, without waiting
// for the parent's tasks or for threads it does not have (the workers, the
// spares, the polling ticker). Forks from main() while tasks run (some
// blocked, a polling service registered: the ticker runs) and from inside a
// task; system() from inside tasks. 1, 2, 4 workers and more than CPUs.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "joule/joule.hpp"
#include "joule/nanos6/nanos6.h"

namespace {

// What a child does: run a small dependent graph on a runtime of its own,
// then exit() (which stops that runtime). Exit code 0 when the sum is right.
[[noreturn]] void child_runs_joule_and_exits() {
  long cells[4] = {0, 0, 0, 0};
  for (int round = 0; round < 50; ++round)
    for (long& c : cells) joule::spawn({joule::inout(c)}, [&c] { ++c; });
  joule::taskwait();
  std::exit(cells[0] + cells[1] + cells[2] + cells[3] == 200 ? 0 : 3);
}

// The child's exit status, or -1 when it did not end within `seconds` (it
// is killed then: a child hung on an inherited lock or a missing thread).
int wait_child(pid_t child, int seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  int status = 0;
  while (::waitpid(child, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > until) {
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int ready(void* flag) { return static_cast<std::atomic<bool>*>(flag)->load() ? 1 : 0; }

// Busy tasks, a blocked task and a polling service, so that every kind of
// engine thread exists in the parent when it forks.
class Busy {
 public:
  Busy() {
    nanos6_register_polling_service("fork test", ready, &service_done_);
    joule::spawn([this] {
      void* c = nanos6_get_current_blocking_context();
      context_.store(c);
      nanos6_block_current_task(c);
    });
    for (int i = 0; i < 8; ++i)
      joule::spawn([this] {
        while (!stop_.load()) std::this_thread::yield();
      });
    // With one worker nothing runs until main() waits: give the others a
    // moment to start (the forks below happen while these tasks run or wait).
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ~Busy() {
    stop_ = true;
    service_done_ = true;
    // The blocked task may start only inside the taskwait (one worker).
    std::thread unblocker([this] {
      void* c;
      while (!(c = context_.load())) std::this_thread::yield();
      nanos6_unblock_task(c);
    });
    joule::taskwait();
    unblocker.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<bool> service_done_{false};
  std::atomic<void*> context_{nullptr};
};

// Forks inside a task; the child runs `child` (which must not return). The
// busy tasks run on: main() waits for the forking task alone.
pid_t fork_inside_a_task(void (*child)()) {
  std::atomic<pid_t> pid{0};
  long token = 0;
  joule::spawn({joule::inout(token)}, [&pid, child] {
    const pid_t p = ::fork();
    if (p == 0) child();
    pid = p;
  });
  joule::taskwait_on({joule::inout(token)});
  return pid.load();
}

[[noreturn]] void child_only_exits() { std::exit(7); }  // joule's exit handler must not wait

class ForkChild : public ::testing::TestWithParam<int> {};

TEST_P(ForkChild, AChildForkedFromMainRunsJouleAgainAndExits) {
#ifdef __SANITIZE_THREAD__
  GTEST_SKIP() << "fork after threads under TSan";
#endif
  joule::runtime rt({{"JOULE_WORKERS", std::to_string(GetParam())}});
  Busy busy;
  const pid_t child = ::fork();
  if (child == 0) child_runs_joule_and_exits();
  ASSERT_GT(child, 0);
  EXPECT_EQ(wait_child(child, 60), 0);
}

TEST_P(ForkChild, AChildForkedInsideATaskRunsJouleAgainAndExits) {
#ifdef __SANITIZE_THREAD__
  GTEST_SKIP() << "fork after threads under TSan";
#endif
  joule::runtime rt({{"JOULE_WORKERS", std::to_string(GetParam())}});
  Busy busy;
  const pid_t child = fork_inside_a_task(child_runs_joule_and_exits);
  ASSERT_GT(child, 0);
  EXPECT_EQ(wait_child(child, 60), 0);
}

TEST_P(ForkChild, AChildThatOnlyExitsEndsAtOnce) {
#ifdef __SANITIZE_THREAD__
  GTEST_SKIP() << "fork after threads under TSan";
#endif
  joule::runtime rt({{"JOULE_WORKERS", std::to_string(GetParam())}});
  Busy busy;
  const pid_t child = fork_inside_a_task(child_only_exits);
  ASSERT_GT(child, 0);
  EXPECT_EQ(wait_child(child, 30), 7);
}

TEST_P(ForkChild, SystemFromInsideTasksWorks) {
  joule::runtime rt({{"JOULE_WORKERS", std::to_string(GetParam())}});
  std::atomic<int> ok{0};
  for (int i = 0; i < 8; ++i)
    joule::spawn([&ok] {
      if (std::system("exit 5") != -1) ++ok;
    });
  joule::taskwait();
  EXPECT_EQ(ok.load(), 8);
}

INSTANTIATE_TEST_SUITE_P(Workers, ForkChild,
                         ::testing::Values(1, 2, 4,
                                           int(std::thread::hardware_concurrency()) * 2 + 1));

}  // namespace
