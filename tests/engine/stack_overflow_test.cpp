// Recursion inside one task body that outgrows its worker's stack: the
// process still dies of SIGSEGV, but first says where and which setting
// raises the stack (OverflowGuard). Death tests: each runs in a child.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "fault_handlers.hpp"
#include "joule/joule.hpp"
#include "test_support.hpp"

namespace {

// ASan and TSan own SIGSEGV (their handle_segv reports the overflow
// themselves), and the guard installs only over the default action.
#define SKIP_UNDER_SANITIZER()       \
  if (joule_test::under_sanitizer()) \
  GTEST_SKIP() << "the sanitizer's SIGSEGV handler reports stack overflows in this build"

// Not a tail call (the sum uses the frame after the call), and a frame
// large enough to reach the guard quickly.
int deep(int n) {
  volatile char pad[1024];
  pad[0] = char(n);
  if (n == 0) return pad[0];
  return deep(n - 1) + pad[0];
}

// Runs on worker 1: this thread (worker 0) never helps, it only sleeps.
// then() runs once the runtime (and its handler) started.
[[noreturn]] void overflow_in_a_task(const char* stack_size, void (*then)() = nullptr,
                                     const char* label = nullptr) {
  joule::runtime rt({{"JOULE_WORKERS", "2"}, {"JOULE_STACK_SIZE", stack_size}});
  if (then) then();
  joule::task_options opts;
  opts.label = label;
  joule::spawn([] { deep(1 << 30); }, opts);
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

TEST(StackOverflowDeathTest, RecursionInATaskBodyIsNamed) {
  SKIP_UNDER_SANITIZER();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(overflow_in_a_task("256K"), testing::KilledBySignal(SIGSEGV),
              "joule: stack overflow in a task body on worker 1, task [0-9]+\\.[0-9]+ "
              "\\(no label\\) \\(stack 2[0-9][0-9] KiB; raise JOULE_STACK_SIZE or "
              "OMP_STACKSIZE\\)");
}

// The task's label (a static string the program gave it, as OmpSs-2's
// label clause does) names the task in the line.
TEST(StackOverflowDeathTest, TheTaskIsNamedByItsLabel) {
  SKIP_UNDER_SANITIZER();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(overflow_in_a_task("256K", nullptr, "recursive solver"),
              testing::KilledBySignal(SIGSEGV),
              "joule: stack overflow in a task body on worker 1, task [0-9]+\\.[0-9]+ "
              "\"recursive solver\" \\(stack 2[0-9][0-9] KiB; raise JOULE_STACK_SIZE");
}

// Stands for the platform layer's crash restore (restore_guard.cpp): a
// handler of joule's own that installs itself over the default action or
// over the overflow report, and chains to what it replaced.
struct sigaction g_before_restore {};

void restore_stand_in(int sig, siginfo_t* info, void*) {
  const char line[] = "restore ran\n";
  const ssize_t ignored = write(STDERR_FILENO, line, sizeof line - 1);
  (void)ignored;
  joule::core::chain_fault(sig, info, g_before_restore);
}

void install_restore_stand_in() {
  joule::core::note_own_fault_handler(restore_stand_in);
  struct sigaction old {};
  sigaction(SIGSEGV, nullptr, &old);
  ASSERT_TRUE(joule::core::replaceable_fault_action(old));
  struct sigaction sa {};
  sa.sa_sigaction = restore_stand_in;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigaction(SIGSEGV, &sa, &g_before_restore);
}

// Whichever of the two comes first, both run and the process dies of SIGSEGV.
TEST(StackOverflowDeathTest, TheCrashRestoreInstalledBeforeStillRuns) {
  SKIP_UNDER_SANITIZER();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        install_restore_stand_in();
        overflow_in_a_task("256K");
      },
      testing::KilledBySignal(SIGSEGV), "joule: stack overflow in a task body.*\nrestore ran\n");
}

TEST(StackOverflowDeathTest, TheCrashRestoreInstalledAfterStillRuns) {
  SKIP_UNDER_SANITIZER();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(overflow_in_a_task("256K", install_restore_stand_in),
              testing::KilledBySignal(SIGSEGV),
              "restore ran\njoule: stack overflow in a task body on worker 1");
}

// A program's own SIGSEGV handler is left alone: no message, its handler
// decides (here: exit with a status of its own).
void own_handler(int) { _exit(42); }

TEST(StackOverflowDeathTest, TheProgramsOwnHandlerIsKept) {
  SKIP_UNDER_SANITIZER();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        // Its own alternate stack for the calling thread only: the worker
        // overflows without one, so the kernel kills it with SIGSEGV.
        struct sigaction sa {};
        sa.sa_handler = own_handler;
        sigaction(SIGSEGV, &sa, nullptr);
        fprintf(stderr, "own handler installed\n");
        overflow_in_a_task("256K");
      },
      testing::KilledBySignal(SIGSEGV), "^own handler installed\n$");
}

}  // namespace
