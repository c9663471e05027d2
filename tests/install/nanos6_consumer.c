/* Consumer of an installed joule's Nanos6 API and ALPI, built with
 *   cc -I<prefix>/include/joule/nanos6 nanos6_consumer.c $(pkg-config --cflags --libs joule)
 * as joulecc does (docs/porting-ompss-semantics.md, "The Nanos6 API"): the headers are
 * installed, found under their Nanos6 names, and answer. A spawned task is
 * independent of the spawning thread, as in Nanos6 (no taskwait waits for
 * it): main, itself a task, waits for its completion callback with ALPI's
 * waitfor, which lets the CPU run other tasks meanwhile (up to 10 s). */
#include <joule/alpi.h>
#include <joule/joule.h>
#include <nanos6.h>
#include <nanos6/debug.h>

#include <stdatomic.h>
#include <stdio.h>

static atomic_int body_ran, callback_ran;

static void body(void *arg) { atomic_store((atomic_int *)arg, 1); }
static void done(void *arg) { atomic_store((atomic_int *)arg, 1); }

int main(void) {
  int major = 0, minor = 0;
  if (alpi_version_get(&major, &minor) != ALPI_SUCCESS || major != ALPI_VERSION_MAJOR) return 1;
  if (alpi_feature_check(ALPI_FEATURE_BLOCKING | ALPI_FEATURE_EVENTS) != ALPI_SUCCESS) return 2;
  if (nanos6_get_num_cpus() < 1) return 3;
  if (alpi_task_spawn(body, &body_ran, done, &callback_ran, "consumer", NULL) != ALPI_SUCCESS)
    return 4;
  for (int i = 0; i < 10000 && !atomic_load(&callback_ran); ++i)
    if (alpi_task_waitfor_ns(1000000, NULL) != ALPI_SUCCESS) return 7;
  if (!atomic_load(&callback_ran)) return 5;
  if (!atomic_load(&body_ran)) return 6;
  printf("nanos6/ALPI consumer on %u CPUs: OK\n", nanos6_get_num_cpus());
  return 0;
}
