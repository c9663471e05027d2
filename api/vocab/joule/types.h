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
#define JOULE_C_API_VERSION 2

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
  JOULE_DEP_REDUCTION = 6    /* with an operator: private copies; without: commutative */
} joule_dep_kind_t;

/* A reduction operator over a region of `bytes` bytes. init sets a private
 * copy to the operator's identity (orig: the original data, for operators
 * whose identity depends on it); combine folds `in` into `inout`. Both must
 * be safe to call from any thread and must not throw. */
typedef struct joule_reduction_operator {
  void (*init)(void *priv, const void *orig, size_t bytes);
  void (*combine)(void *inout, const void *in, size_t bytes);
} joule_reduction_op_t;

/* A dependency on the bytes [addr, addr + bytes). `reduction` (kind
 * JOULE_DEP_REDUCTION only): the operator; reducing tasks then run
 * concurrently, each updating its private copy (joule_reduction_private).
 * NULL keeps C API version 1's behaviour: in-place, mutually exclusive. */
typedef struct joule_dep {
  int kind; /* joule_dep_kind_t */
  const void *addr;
  size_t bytes;
  const joule_reduction_op_t *reduction;
} joule_dep_t;

/* Built-in operators and element types for joule_reduction_op(). */
typedef enum joule_red_kind {
  JOULE_RED_SUM = 1, /* +  (also OmpSs `-`, which sums the partial results) */
  JOULE_RED_PROD,    /* *  */
  JOULE_RED_MIN,
  JOULE_RED_MAX,
  JOULE_RED_BAND, /* &  (integer types) */
  JOULE_RED_BOR,  /* |  */
  JOULE_RED_BXOR, /* ^  */
  JOULE_RED_LAND, /* && */
  JOULE_RED_LOR   /* || */
} joule_red_kind_t;

typedef enum joule_red_type {
  JOULE_TYPE_CHAR = 1,
  JOULE_TYPE_SCHAR,
  JOULE_TYPE_UCHAR,
  JOULE_TYPE_SHORT,
  JOULE_TYPE_USHORT,
  JOULE_TYPE_INT,
  JOULE_TYPE_UINT,
  JOULE_TYPE_LONG,
  JOULE_TYPE_ULONG,
  JOULE_TYPE_LLONG,
  JOULE_TYPE_ULLONG,
  JOULE_TYPE_FLOAT,
  JOULE_TYPE_DOUBLE,
  JOULE_TYPE_LDOUBLE,
  JOULE_TYPE_BOOL /* C _Bool / C++ bool */
} joule_red_type_t;

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
