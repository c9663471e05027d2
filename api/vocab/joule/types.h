/* joule's vocabulary types: status codes, dependency kinds, task options and
 * the task function types. Shared by the C ABI (joule.h), the C++ API
 * (joule.hpp) and the runtime's own layers, which may include this header
 * and joule/types.hpp but no other public header (docs/internals.md). */
#ifndef JOULE_TYPES_H
#define JOULE_TYPES_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define JOULE_EXPORT
#else
#define JOULE_EXPORT __attribute__((visibility("default")))
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
  JOULE_ERR_STATE = 5 /* call not allowed now (e.g. init twice) */
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
  size_t struct_size; /* sizeof(joule_task_options_t): lets the ABI grow */
  const char *label;  /* static string naming the task type, or NULL */
  int priority;       /* higher runs first under the `priority` scheduler */
  int final_;         /* non-zero: this task and its descendants run inline */
  int if_;            /* zero: undeferred, run by the creator once ready */
  double cost;        /* relative cost hint for energy policies (0: unknown) */
  uint64_t affinity;  /* affinity key, JOULE_NO_AFFINITY for none */
} joule_task_options_t;

#define JOULE_TASK_OPTIONS_INIT \
  { sizeof(joule_task_options_t), NULL, 0, 0, 1, 0.0, JOULE_NO_AFFINITY }

typedef struct joule_task joule_task_t;
typedef void (*joule_task_fn_t)(void *args);
typedef void (*joule_loop_fn_t)(void *args, int64_t lo, int64_t hi);

#endif /* JOULE_TYPES_H */
