// The program the process-lifecycle tests run as a child (lifecycle_exit_test.cpp):
// argv[1] picks what it does; the parent checks its exit status and output.
#include <joule/joule.h>
#include <joule/joule.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace {

std::atomic<bool> g_exiting{false};

// Only one task calls exit: two threads in exit() at once is undefined.
void exit_once(int code) {
  if (!g_exiting.exchange(true)) std::exit(code);
}

// exit(7) from the first task to run (implicit start).
int exit_in_first_task() {
  for (int i = 0; i < 8; ++i) joule::spawn([] { exit_once(7); });
  joule::taskwait();
  return 0;
}

// exit(7) from a task on a worker other than the starting thread.
int exit_on_other_worker() {
  for (int i = 0; i < 2000 && !g_exiting.load(); ++i) {
    joule::spawn([] {
      if (joule::worker_id() > 0) exit_once(7);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    });
  }
  joule::taskwait();
  return 0;
}

// exit(7) from a nested task while the starting thread waits in
// joule::runtime's destructor (the runtime's stop is already under way).
int exit_while_stopping() {
  joule::runtime rt;
  joule::spawn([] {
    joule::spawn([] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      exit_once(7);
    });
  });
  return 0;
}

// joule_finalize inside a task: JOULE_ERR_STATE, and the program goes on.
int finalize_in_task() {
  if (joule_init() != JOULE_OK) return 2;
  static int rc = -1;
  joule::spawn([] { rc = joule_finalize(); });
  joule::taskwait();
  std::printf("finalize in task: %d (%s)\n", rc, joule_last_error());
  if (joule_finalize() != JOULE_OK) return 3;
  std::printf("finalize outside: ok\n");
  return rc == JOULE_ERR_STATE ? 0 : 4;
}

// A joule::runtime destroyed inside a task: reported, the runtime keeps
// running, and it stops later outside every task.
int runtime_destroyed_in_task() {
  auto* rt = new joule::runtime({{"JOULE_WORKERS", "2"}});
  joule::spawn([rt] { delete rt; });
  joule::taskwait();
  int n = 0;
  joule::spawn([&n] { n = 1; });
  joule::taskwait();
  if (joule_finalize() != JOULE_OK) return 3;
  std::printf("after: %d\n", n);
  return n == 1 ? 0 : 4;
}

// Implicit start (the first spawn) under the parent's environment.
int implicit_start() {
  int x = 0;
  joule::spawn([&x] { x = 1; });
  joule::taskwait();
  std::printf("ran: %d\n", x);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (!std::strcmp(mode, "exit-first")) return exit_in_first_task();
  if (!std::strcmp(mode, "exit-worker")) return exit_on_other_worker();
  if (!std::strcmp(mode, "exit-stopping")) return exit_while_stopping();
  if (!std::strcmp(mode, "finalize-in-task")) return finalize_in_task();
  if (!std::strcmp(mode, "runtime-in-task")) return runtime_destroyed_in_task();
  if (!std::strcmp(mode, "implicit-start")) return implicit_start();
  std::fprintf(stderr, "lifecycle_child: unknown mode '%s'\n", mode);
  return 100;
}
