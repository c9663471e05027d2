/* The process around the runtime in a joulecc program (shim lifecycle_test):
 * argv[1] "exit": the first task to run calls exit(7); "finalize": a task's
 * joule_finalize is refused (JOULE_ERR_STATE) and the program goes on;
 * otherwise one task runs (a bad setting in the environment must end the
 * program with status 1 and a message at its first task). */
#include <joule/joule.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int exiting;

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  int ran = 0, rc = -1;
  if (!strcmp(mode, "exit")) {
    for (int i = 0; i < 8; i++) {
#pragma oss task
      {
        /* one exit only: two threads in exit() at once is undefined */
        if (!__atomic_exchange_n(&exiting, 1, __ATOMIC_SEQ_CST)) exit(7);
      }
    }
#pragma oss taskwait
    return 0;
  }
  if (!strcmp(mode, "finalize")) {
#pragma oss task shared(rc)
    rc = joule_finalize();
#pragma oss taskwait
    printf("finalize in task: %d\n", rc);
    if (joule_finalize() != JOULE_OK) return 3;
    printf("finalize outside: ok\n");
    return rc == JOULE_ERR_STATE ? 0 : 4;
  }
#pragma oss task shared(ran)
  ran = 1;
#pragma oss taskwait
  printf("ran: %d\n", ran);
  return 0;
}
