/* joule C ABI: the stable surface a compiler (joulecc) or a C program targets.
 *
 * A task is made in two steps so that a compiler can lay out the captured
 * variables itself:  create (the runtime allocates the task and its argument
 * block) -> fill the argument block -> add dependencies -> submit.
 * Every function returns JOULE_OK or a joule_status_t error code; the message
 * of the last error on the calling thread is available from joule_last_error().
 */
#ifndef JOULE_JOULE_H
#define JOULE_JOULE_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define JOULE_EXPORT
#else
#define JOULE_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define JOULE_VERSION_MAJOR 0
#define JOULE_VERSION_MINOR 1
#define JOULE_VERSION_PATCH 0
/* Bumped whenever a struct or signature in this header changes. */
#define JOULE_C_API_VERSION 1

typedef enum joule_status {
  JOULE_OK = 0,
  JOULE_ERR_INVALID = 1,        /* bad argument: null body, overflowing region, ... */
  JOULE_ERR_CONFIG = 2,         /* unknown JOULE_* key or value */
  JOULE_ERR_TASK_EXCEPTION = 3, /* a child task threw; message in joule_last_error() */
  JOULE_ERR_NOMEM = 4,
  JOULE_ERR_STATE = 5           /* call not allowed now (e.g. init twice) */
} joule_status_t;

typedef enum joule_dep_kind {
  JOULE_DEP_IN = 1,
  JOULE_DEP_OUT = 2,
  JOULE_DEP_INOUT = 3,
  JOULE_DEP_COMMUTATIVE = 4, /* mutually exclusive among themselves, any order */
  JOULE_DEP_CONCURRENT = 5,  /* may run together, ordered against other kinds */
  JOULE_DEP_REDUCTION = 6    /* in-place reduction: treated as commutative */
} joule_dep_kind_t;

/* A dependency on the bytes [addr, addr + bytes). */
typedef struct joule_dep {
  int kind; /* joule_dep_kind_t */
  const void *addr;
  size_t bytes;
} joule_dep_t;

#define JOULE_NO_AFFINITY UINT64_MAX

typedef struct joule_task_options {
  size_t struct_size;    /* sizeof(joule_task_options_t): lets the ABI grow */
  const char *label;     /* static string naming the task type, or NULL */
  int priority;          /* higher runs first under the `priority` scheduler */
  int final_;            /* non-zero: this task and its descendants run inline */
  int if_;               /* zero: undeferred, run by the creator once ready */
  double cost;           /* relative cost hint for energy policies (0: unknown) */
  uint64_t affinity;     /* affinity key, JOULE_NO_AFFINITY for none */
} joule_task_options_t;

#define JOULE_TASK_OPTIONS_INIT \
  { sizeof(joule_task_options_t), NULL, 0, 0, 1, 0.0, JOULE_NO_AFFINITY }

typedef struct joule_task joule_task_t;
typedef void (*joule_task_fn_t)(void *args);
typedef void (*joule_loop_fn_t)(void *args, int64_t lo, int64_t hi);

/* Start explicitly (otherwise the first call starts the runtime). settings are
 * n pairs of JOULE_* key and value that override the environment. */
JOULE_EXPORT int joule_init(void);
JOULE_EXPORT int joule_init_with(const char *const *keys, const char *const *values, size_t n);
/* Wait for every task, stop the workers. Also done automatically at exit. */
JOULE_EXPORT int joule_finalize(void);

/* Allocate a task whose body fn receives a pointer to an argument block of
 * args_size bytes (aligned to 16). opts may be NULL. */
JOULE_EXPORT int joule_task_create(joule_task_fn_t fn, size_t args_size,
                                   const joule_task_options_t *opts, joule_task_t **task,
                                   void **args);
JOULE_EXPORT int joule_task_add_dep(joule_task_t *task, joule_dep_kind_t kind, const void *addr,
                                    size_t bytes);
JOULE_EXPORT int joule_task_add_deps(joule_task_t *task, const joule_dep_t *deps, size_t n);
JOULE_EXPORT int joule_task_submit(joule_task_t *task);
/* Drop a created task that will not be submitted (e.g. after an add_dep error). */
JOULE_EXPORT int joule_task_discard(joule_task_t *task);

/* Wait for the children of the current task (or of the calling thread). */
JOULE_EXPORT int joule_taskwait(void);
/* Wait only for earlier sibling tasks that touch these data, as a task with
 * these dependencies would (JOULE_DEP_IN waits for writers only). */
JOULE_EXPORT int joule_taskwait_on(const joule_dep_t *deps, size_t n);

/* Run fn over [begin, end) in chunks of grainsize (0: automatic) as tasks and
 * wait for them. args is passed to every chunk as is. */
JOULE_EXPORT int joule_taskloop(joule_loop_fn_t fn, void *args, int64_t begin, int64_t end,
                                int64_t grainsize, const joule_task_options_t *opts);

JOULE_EXPORT int joule_num_workers(void);
/* 0..num_workers-1 on a worker thread, -1 elsewhere. */
JOULE_EXPORT int joule_worker_id(void);
/* Marks the end of an application iteration (energy policies act here). */
JOULE_EXPORT void joule_iteration_boundary(void);
/* Non-zero when called from inside a final task. */
JOULE_EXPORT int joule_in_final(void);

JOULE_EXPORT const char *joule_last_error(void);
JOULE_EXPORT const char *joule_version(void);

#ifdef __cplusplus
}
#endif

#endif /* JOULE_JOULE_H */
