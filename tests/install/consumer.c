/* Consumer of an installed joule (C ABI), built with
 *   cc consumer.c $(pkg-config --cflags --libs joule)
 * Two-step tasks (create -> fill args -> add deps -> submit), taskwait,
 * taskloop and an error code; exits non-zero on a wrong answer. */
#include <joule/joule.h>

#include <stdio.h>

struct add_args {
  long *acc;
  long value;
};

static void add_task(void *p) {
  struct add_args *a = (struct add_args *)p;
  *a->acc += a->value;
}

static void fill_chunk(void *p, int64_t lo, int64_t hi) {
  int *out = (int *)p;
  for (int64_t i = lo; i < hi; ++i) out[i] = (int)i;
}

static int spawn_add(long *acc, long value) {
  joule_task_t *t = NULL;
  void *args = NULL;
  int rc = joule_task_create(add_task, sizeof(struct add_args), NULL, &t, &args);
  if (rc != JOULE_OK) return rc;
  struct add_args *a = (struct add_args *)args;
  a->acc = acc;
  a->value = value;
  rc = joule_task_add_dep(t, JOULE_DEP_INOUT, acc, sizeof *acc);
  if (rc != JOULE_OK) {
    joule_task_discard(t);
    return rc;
  }
  return joule_task_submit(t);
}

int main(void) {
  const char *keys[] = {"JOULE_WORKERS"};
  const char *values[] = {"2"};
  if (joule_init_with(keys, values, 1) != JOULE_OK) {
    fprintf(stderr, "consumer_c: init failed: %s\n", joule_last_error());
    return 1;
  }
  long acc = 0;
  for (long i = 1; i <= 100; ++i) {
    if (spawn_add(&acc, i) != JOULE_OK) {
      fprintf(stderr, "consumer_c: spawn failed: %s\n", joule_last_error());
      return 1;
    }
  }
  int rc = joule_taskwait();
  int v[500] = {0};
  if (rc == JOULE_OK) rc = joule_taskloop(fill_chunk, v, 0, 500, 50, NULL);
  /* A null body must be refused with JOULE_ERR_INVALID and a message. */
  joule_task_t *t = NULL;
  void *args = NULL;
  const int bad = joule_task_create(NULL, 0, NULL, &t, &args);
  long sum = 0;
  for (int i = 0; i < 500; ++i) sum += v[i];
  const int ok =
      rc == JOULE_OK && acc == 5050 && sum == 499L * 500L / 2 && bad == JOULE_ERR_INVALID;
  printf("consumer_c: joule %s, acc=%ld sum=%ld null-body=%d (%s): %s\n", joule_version(), acc, sum,
         bad, joule_last_error(), ok ? "OK" : "WRONG");
  joule_finalize();
  return ok ? 0 : 1;
}
