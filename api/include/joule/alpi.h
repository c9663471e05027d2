/* ALPI, the tasking runtime interface that task-aware libraries (TAMPI,
 * TAGASPI) call: version 1.2 of the interface TAMPI's src/common/ALPI.hpp
 * declares, answered by libjoule. Build TAMPI against joule as
 * docs/porting-ompss-semantics.md ("ALPI and TAMPI") says. C and C++.
 *
 * Supported: blocking, events, resources and suspend (ALPI_FEATURE_*).
 * A task that runs inline (one worker in serial mode, below a final task)
 * or undeferred cannot suspend: alpi_task_suspend returns ALPI_ERR_UNKNOWN. */
#ifndef JOULE_ALPI_H
#define JOULE_ALPI_H

#include <stddef.h>
#include <stdint.h>

#include "joule/types.h"

#define ALPI_FEATURE_BLOCKING (1 << 0)
#define ALPI_FEATURE_EVENTS (1 << 1)
#define ALPI_FEATURE_RESOURCES (1 << 2)
#define ALPI_FEATURE_SUSPEND (1 << 3)

#define ALPI_VERSION_MAJOR 1
#define ALPI_VERSION_MINOR 2

#ifdef __cplusplus
extern "C" {
#endif

struct alpi_task; /* opaque: a joule task */
struct alpi_attr; /* opaque: joule has no task attributes yet */

typedef enum {
  ALPI_SUCCESS = 0,
  ALPI_ERR_VERSION,
  ALPI_ERR_NOT_INITIALIZED,
  ALPI_ERR_PARAMETER,
  ALPI_ERR_OUT_OF_MEMORY,
  ALPI_ERR_OUTSIDE_TASK,
  ALPI_ERR_UNKNOWN,
  ALPI_ERR_FEATURE_UNKNOWN,
  ALPI_ERR_MAX
} alpi_error_t;

typedef enum { ALPI_INFO_RUNTIME_NAME, ALPI_INFO_RUNTIME_VENDOR, ALPI_INFO_VERSION } alpi_info_t;

typedef enum {
  ALPI_SUSPEND_NONE = 0,
  ALPI_SUSPEND_SUBMIT,
  ALPI_SUSPEND_TIMEOUT_SUBMIT,
  ALPI_SUSPEND_EVENT_SUBMIT
} alpi_suspend_mode_t;

JOULE_EXPORT const char *alpi_error_string(alpi_error_t error);
JOULE_EXPORT int alpi_info_get(alpi_info_t query, char *buffer, size_t max_length, int *length);
/* ALPI_SUCCESS when every flagged feature is supported. */
JOULE_EXPORT int alpi_feature_check(int feature_bitmask);
/* Compatible: the same major and a minor no newer than ours. */
JOULE_EXPORT int alpi_version_check(int major, int minor);
JOULE_EXPORT int alpi_version_get(int *major, int *minor);

JOULE_EXPORT int alpi_task_self(struct alpi_task **task);
/* As nanos6_block_current_task (<joule/nanos6/nanos6.h>): the task keeps
 * its thread, asleep, and its CPU runs other tasks meanwhile; an unblock
 * may come first. */
JOULE_EXPORT int alpi_task_block(struct alpi_task *task);
JOULE_EXPORT int alpi_task_unblock(struct alpi_task *task);
JOULE_EXPORT int alpi_task_waitfor_ns(uint64_t target_ns, uint64_t *actual_ns);
/* Events hold the task's completion (its dependencies' release), not its
 * body. Only the running task increases its own events. */
JOULE_EXPORT int alpi_task_events_increase(struct alpi_task *task, uint64_t increment);
JOULE_EXPORT int alpi_task_events_test(struct alpi_task *task, uint64_t *has_events);
JOULE_EXPORT int alpi_task_events_decrease(struct alpi_task *task, uint64_t decrement);

JOULE_EXPORT int alpi_attr_create(struct alpi_attr **attr);
JOULE_EXPORT int alpi_attr_destroy(struct alpi_attr *attr);
JOULE_EXPORT int alpi_attr_init(struct alpi_attr *attr);
JOULE_EXPORT int alpi_attr_size(uint64_t *attr_size);

/* An independent task (no parent's dependencies); completion_callback runs
 * once it has completed, on the thread that completed it. */
JOULE_EXPORT int alpi_task_spawn(void (*body)(void *), void *body_args,
                                 void (*completion_callback)(void *), void *completion_args,
                                 const char *label, const struct alpi_attr *attr);

JOULE_EXPORT int alpi_cpu_count(uint64_t *count);
JOULE_EXPORT int alpi_cpu_logical_id(uint64_t *logical_id);
JOULE_EXPORT int alpi_cpu_system_id(uint64_t *system_id);

/* The calling task's mode for its next suspend: NONE (it completes as if
 * not suspended; also without a mode set), SUBMIT (its body runs again),
 * TIMEOUT_SUBMIT (again after args ns, as fine as the polling services),
 * EVENT_SUBMIT (again once its events are 0). */
JOULE_EXPORT int alpi_task_suspend_mode_set(struct alpi_task *task,
                                            alpi_suspend_mode_t suspend_mode, uint64_t args);
/* When the body returns, the task runs its body again (by its mode)
 * instead of completing. */
JOULE_EXPORT int alpi_task_suspend(struct alpi_task *task);

#ifdef __cplusplus
}
#endif

#endif /* JOULE_ALPI_H */
