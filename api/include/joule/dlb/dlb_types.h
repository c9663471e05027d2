/* DLB's common types under the name DLB programs include (<dlb_types.h>).
 * DLB's own header brings in <stdbool.h> and <sched.h>-style masks, and
 * programs rely on that (bool, cpu_set_t), so this one does too. */
#ifndef JOULE_DLB_TYPES_H
#define JOULE_DLB_TYPES_H

#ifndef __cplusplus
#include <stdbool.h>
#endif
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* cpu_set_t and CPU_SET in <sched.h> */
#endif
#include <sched.h>

/* Special CPU counts of DLB_AcquireCpus / DLB_BorrowCpus (DLB's API
 * reference): as many as possible, and "forget queued requests". joule
 * never queues requests (polling only), so the latter has nothing to do. */
enum { DLB_DELETE_REQUESTS = -1, DLB_MAX_CPUS = -2 };

/* A CPU set is a pointer to a cpu_set_t (<sched.h>). */
typedef void *dlb_cpu_set_t;
typedef const void *const_dlb_cpu_set_t;

/* The values are DLB's own (from 1), so that a binary built against DLB's
 * headers passes the same kinds to joule. */
typedef enum dlb_callbacks_e {
  dlb_callback_set_num_threads = 1,
  dlb_callback_set_active_mask = 2,
  dlb_callback_set_process_mask = 3,
  dlb_callback_add_active_mask = 4,
  dlb_callback_add_process_mask = 5,
  dlb_callback_enable_cpu = 6,
  dlb_callback_disable_cpu = 7,
  dlb_callback_enable_cpu_set = 8,
  dlb_callback_disable_cpu_set = 9
} dlb_callbacks_t;
/* Cast the real callback to this type for DLB_CallbackSet. */
typedef void (*dlb_callback_t)(void);
/* Each kind's signature. */
typedef void (*dlb_callback_set_num_threads_t)(int num_threads, void *arg);
typedef void (*dlb_callback_set_active_mask_t)(const_dlb_cpu_set_t mask, void *arg);
typedef void (*dlb_callback_set_process_mask_t)(const_dlb_cpu_set_t mask, void *arg);
typedef void (*dlb_callback_add_active_mask_t)(const_dlb_cpu_set_t mask, void *arg);
typedef void (*dlb_callback_add_process_mask_t)(const_dlb_cpu_set_t mask, void *arg);
typedef void (*dlb_callback_enable_cpu_t)(int cpuid, void *arg);
typedef void (*dlb_callback_disable_cpu_t)(int cpuid, void *arg);
typedef void (*dlb_callback_enable_cpu_set_t)(const_dlb_cpu_set_t mask, void *arg);
typedef void (*dlb_callback_disable_cpu_set_t)(const_dlb_cpu_set_t mask, void *arg);

/* A region of DLB's application manager (dlb_mngo.h). */
typedef struct dlb_mngo_region_t dlb_mngo_region_t;

typedef enum dlb_drom_flags_e {
  DLB_DROM_FLAGS_NONE = 0,
  DLB_SYNC_QUERY = 1 << 0,   /* wait until the target applied the mask */
  DLB_STEAL_CPUS = 1 << 1,   /* accepted; joule never steals (docs/dlb-api.md) */
  DLB_RETURN_STOLEN = 1 << 2 /* accepted; nothing is ever stolen */
} dlb_drom_flags_t;

/* Named barriers (DLB_BarrierNamed*): whether the CPUs of a process waiting
 * in the barrier are lent meanwhile. */
typedef enum dlb_barrier_flags_e {
  DLB_BARRIER_LEWI_OFF = 0,
  DLB_BARRIER_LEWI_ON = 1 << 0,
  DLB_BARRIER_LEWI_RUNTIME = 1 << 1 /* as DLB_BARRIER_LEWI_ON here */
} dlb_barrier_flags_t;
typedef struct dlb_barrier_s dlb_barrier_t;

/* A subprocess handle (dlb_sp.h). */
typedef void *dlb_handler_t;

#endif /* JOULE_DLB_TYPES_H */
