// A program that hangs explains itself: `joule-ctl dump PID` (the process's
// dump endpoint, runtime/engine/dump_listener.hpp) and JOULE_WATCHDOG show
// what each worker and each blocked task is doing. The process under test
// is this one: a task blocks through the Nanos6 API and nobody unblocks it
// until the test has read the dump.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "dump_endpoint.hpp"
#include "joule/joule.hpp"
#include "joule/nanos6/nanos6.h"
#include "run_command.hpp"
#include "test_users.hpp"

namespace {

std::string dump_of_this_process() {
  return joule_test::run_command(std::string(JOULE_CTL) + " dump " + std::to_string(::getpid()));
}

// A task labelled `label` that blocks until unblock() (the test's hang).
class StuckTask {
 public:
  explicit StuckTask(const char* label) {
    joule::task_options opts;
    opts.label = label;
    joule::spawn(
        [this] {
          void* c = nanos6_get_current_blocking_context();
          context_.store(c);
          nanos6_block_current_task(c);
        },
        opts);
    EXPECT_TRUE(joule::test::eventually([this] { return context_.load() != nullptr; }, 5000));
  }
  void unblock() {
    if (void* c = context_.exchange(nullptr)) nanos6_unblock_task(c);
    joule::taskwait();
  }
  ~StuckTask() { unblock(); }

 private:
  std::atomic<void*> context_{nullptr};
};

TEST(StateDump, JouleCtlDumpShowsTheWorkersAndTheBlockedTask) {
  joule::runtime rt({{"JOULE_WORKERS", "2"}});
  StuckTask stuck("stuck on purpose");
  std::string out;
  // The block is registered a moment after the context is published.
  ASSERT_TRUE(joule::test::eventually(
      [&] {
        out = dump_of_this_process();
        return out.find("blocked tasks (Nanos6 / ALPI): 1") != std::string::npos;
      },
      5000))
      << out;
  EXPECT_NE(out.find("== joule state of process " + std::to_string(::getpid())), std::string::npos)
      << out;
  EXPECT_NE(out.find("\"stuck on purpose\", blocked for"), std::string::npos) << out;
  EXPECT_NE(out.find("waiting for an unblock (the task blocked through Nanos6 or ALPI) (task "),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("  worker 0 (CPU "), std::string::npos) << out;
  EXPECT_NE(out.find("  worker 1 (CPU "), std::string::npos) << out;
  EXPECT_NE(out.find("completed in the last 200 ms"), std::string::npos) << out;
  EXPECT_NE(out.find("[exit 0]"), std::string::npos) << out;
}

// "task 2.17" from the line of `out` naming `label` ("" when none).
std::string id_of(const std::string& out, const std::string& label) {
  const auto at = out.find("\"" + label + "\", blocked for");
  if (at == std::string::npos) return "";
  const auto begin = out.rfind("task ", at);
  return out.substr(begin, at - 1 - begin);
}

// Task ids carry the creating thread's slot: a thread of the program that
// is not a worker (and a spare thread) has one of its own, above every
// worker's, so its tasks' ids never repeat a worker's.
TEST(StateDump, TasksOfOtherThreadsHaveIdsOfTheirOwn) {
  joule::runtime rt({{"JOULE_WORKERS", "2"}});
  StuckTask by_main("made by main");
  std::unique_ptr<StuckTask> by_other;
  std::thread([&] { by_other = std::make_unique<StuckTask>("made by another thread"); }).join();
  std::string out;
  ASSERT_TRUE(joule::test::eventually(
      [&] {
        out = dump_of_this_process();
        return out.find("blocked tasks (Nanos6 / ALPI): 2") != std::string::npos;
      },
      5000))
      << out;
  const std::string main_id = id_of(out, "made by main");
  const std::string other_id = id_of(out, "made by another thread");
  EXPECT_EQ(main_id.rfind("task 1.", 0), 0u) << out;  // worker 0's slot
  ASSERT_EQ(other_id.rfind("task ", 0), 0u) << out;
  EXPECT_GT(std::stoi(other_id.substr(5)), 2) << out;  // above both workers' slots
  by_main.unblock();  // first: main's taskwait (in unblock) waits for it
}

TEST(StateDump, AProcessWithoutTheEndpointIsReportedNotHung) {
  joule::runtime rt({{"JOULE_WORKERS", "2"}, {"JOULE_DUMP", "no"}});
  const std::string out = dump_of_this_process();
  EXPECT_NE(out.find("does not answer"), std::string::npos) << out;
  EXPECT_NE(out.find("[exit 1]"), std::string::npos) << out;
}

TEST(StateDump, TheWatchdogPrintsTheStateOncePerStall) {
  joule::runtime rt({{"JOULE_WORKERS", "2"}, {"JOULE_WATCHDOG", "1"}});
  testing::internal::CaptureStderr();
  {
    StuckTask stuck("stalled");
    std::this_thread::sleep_for(std::chrono::milliseconds(3500));
  }
  const std::string err = testing::internal::GetCapturedStderr();
  const std::string head = "joule: watchdog: no task completed for";
  const auto first = err.find(head);
  ASSERT_NE(first, std::string::npos) << err;
  EXPECT_EQ(err.find(head, first + 1), std::string::npos) << "reported twice:\n" << err;
  EXPECT_NE(err.find("\"stalled\", blocked for"), std::string::npos) << err;
}

// JOULE_DUMP_SIGNAL: `kill -USR2 PID` prints the same state to stderr, and
// SIGUSR2 is back to its default action once the runtime stopped.
TEST(StateDump, SigUsr2PrintsTheStateWhenAskedTo) {
  {
    joule::runtime rt({{"JOULE_WORKERS", "2"}, {"JOULE_DUMP_SIGNAL", "yes"}});
    testing::internal::CaptureStderr();
    StuckTask stuck("waits for the signal");
    ASSERT_EQ(::kill(::getpid(), SIGUSR2), 0);
    // The dump watches the workers for 200 ms before it prints.
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    stuck.unblock();
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("joule: SIGUSR2 (JOULE_DUMP_SIGNAL): the state follows\n== joule state of "
                       "process " +
                       std::to_string(::getpid())),
              std::string::npos)
        << err;
    EXPECT_NE(err.find("\"waits for the signal\""), std::string::npos) << err;
  }
  struct sigaction now {};
  ASSERT_EQ(::sigaction(SIGUSR2, nullptr, &now), 0);
  EXPECT_EQ(now.sa_handler, SIG_DFL);
}

// Another user is refused (the dump names the program's tasks): as root,
// a child that becomes nobody asks through the socket itself.
TEST(StateDump, OnlyTheProcessUserAndRootMayRead) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to act as another user";
#ifdef __SANITIZE_THREAD__
  GTEST_SKIP() << "fork after threads under TSan";
#endif
  joule::runtime rt({{"JOULE_WORKERS", "2"}});
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(fds[0]);
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(2);
    const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr;
    const socklen_t len = joule::core::dump_endpoint_address(parent, addr);
    if (::connect(s, reinterpret_cast<sockaddr*>(&addr), len) != 0) ::_exit(3);
    char buf[512];
    ssize_t n;
    while ((n = ::read(s, buf, sizeof buf)) > 0)
      if (::write(fds[1], buf, std::size_t(n)) != n) ::_exit(4);
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string reply;
  char buf[512];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0) reply.append(buf, std::size_t(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(reply.rfind("joule: uid 65534 may not read the state of a process of uid 0", 0), 0u)
      << reply;
  EXPECT_EQ(reply.find("worker"), std::string::npos) << reply;
}

}  // namespace
