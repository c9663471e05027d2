/* Shared by the OpenMP test programs: CHECK fails the program with the line,
 * and on_joule() tells whether the calling thread is one of joule's workers
 * (the weak symbol stays null when the program runs on another runtime). */
#ifndef GOMP_TEST_CHECK_H
#define GOMP_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif
int joule_worker_id(void) __attribute__((weak));
#ifdef __cplusplus
}
#endif

static int g_failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++g_failures;                                                            \
    }                                                                          \
  } while (0)

static inline int on_joule(void) { return joule_worker_id && joule_worker_id() >= 0; }

static inline int finish(const char *name) {
  if (g_failures) {
    fprintf(stderr, "%s: %d check(s) failed\n", name, g_failures);
    return 1;
  }
  printf("%s: OK\n", name);
  return 0;
}

#endif
