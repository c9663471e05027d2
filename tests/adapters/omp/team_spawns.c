/* Many parallel regions in a row, a few with explicit tasks, with idle
 * workers asleep between them (run with JOULE_SPIN_US=0): every team must
 * gather. A member left queued behind a worker that took another member,
 * with the only free worker asleep, hangs the program (the ctest TIMEOUT);
 * joule's sleeps have no time limit to hide that. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"

static void work(int n) {
  volatile int k = 0;
  for (int j = 0; j < n; ++j) k += j;
}

int main(int argc, char** argv) {
  const int regions = argc > 1 ? atoi(argv[1]) : 5000;
  long total = 0, expected = 0;
  for (int r = 0; r < regions; ++r) {
    long x = 0;
    int size = 0;
#pragma omp parallel reduction(+ : x)
    {
      x += omp_get_thread_num() + 1;
#pragma omp single
      {
        size = omp_get_num_threads();
        if (r % 3 == 0)
          for (int i = 0; i < 8; ++i) {
#pragma omp task
            work(200);
          }
      }
    }
    total += x;
    expected += (long)size * (size + 1) / 2;
    if (r % 7 == 0) {
      struct timespec ts = {0, 20000};
      nanosleep(&ts, 0);
    }
  }
  CHECK(total == expected);
  return finish("team_spawns");
}
