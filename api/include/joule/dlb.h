/* DLB-compatible names over joule's CPU lending (docs/lending.md).
 *
 * A program written against DLB's LeWI / DROM interface compiles against this
 * header and links libjoule instead of libdlb. The semantics follow DLB's
 * documentation; the implementation is joule's own node table (the same one
 * the runtime uses with JOULE_LEWI=node), so DLB calls and joule workers
 * never disagree about a CPU. Source-compatible only: the values of the
 * enums are joule's, and options come from JOULE_* keys, not DLB_ARGS.
 *
 * Return codes: DLB_SUCCESS (0), DLB_NOUPDT (nothing to do), DLB_NOTED (will
 * happen later, e.g. a reclaimed CPU still run by its borrower), or a
 * negative DLB_ERR_*. */
#ifndef JOULE_DLB_H
#define JOULE_DLB_H

#include "joule/joule.h"

#ifdef __cplusplus
extern "C" {
#endif

enum dlb_status_e {
  DLB_NOUPDT = 2,
  DLB_NOTED = 1,
  DLB_SUCCESS = 0,
  DLB_ERR_UNKNOWN = -1,
  DLB_ERR_NOINIT = -2,
  DLB_ERR_INIT = -3,
  DLB_ERR_DISBLD = -4,
  DLB_ERR_NOSHMEM = -5,
  DLB_ERR_NOPROC = -6,
  DLB_ERR_PDIRTY = -7,
  DLB_ERR_PERM = -8,
  DLB_ERR_TIMEOUT = -9,
  DLB_ERR_NOCBK = -10,
  DLB_ERR_NOENT = -11,
  DLB_ERR_NOCOMP = -12,
  DLB_ERR_REQST = -13,
  DLB_ERR_NOMEM = -14,
  DLB_ERR_NOPOL = -15
};

/* A CPU set is a pointer to a cpu_set_t (<sched.h>). */
typedef void *dlb_cpu_set_t;
typedef const void *const_dlb_cpu_set_t;

typedef enum dlb_callbacks_e {
  dlb_callback_set_num_threads,
  dlb_callback_set_active_mask,
  dlb_callback_set_process_mask,
  dlb_callback_add_active_mask,
  dlb_callback_add_process_mask,
  dlb_callback_enable_cpu,
  dlb_callback_disable_cpu
} dlb_callbacks_t;
/* Cast the real callback to this type. Signatures:
 *   set_num_threads(int n, void *arg); enable_cpu / disable_cpu(int cpu, void *arg);
 *   the *_mask ones (const_dlb_cpu_set_t mask, void *arg). */
typedef void (*dlb_callback_t)(void);

typedef enum dlb_drom_flags_e {
  DLB_DROM_FLAGS_NONE = 0,
  DLB_SYNC_QUERY = 1 << 0 /* wait until the target applied the mask */
} dlb_drom_flags_t;

/* ---- management ---- */
/* Joins the node table owning `mask` (NULL: JOULE_CPUS or the affinity
 * mask); ncpus and dlb_args are accepted and ignored. A second call returns
 * DLB_ERR_INIT. Works whatever JOULE_LEWI says (off becomes node). */
JOULE_EXPORT int DLB_Init(int ncpus, const_dlb_cpu_set_t mask, const char *dlb_args);
JOULE_EXPORT int DLB_Finalize(void);
JOULE_EXPORT int DLB_Enable(void);
JOULE_EXPORT int DLB_Disable(void);
JOULE_EXPORT int DLB_SetMaxParallelism(int max);
JOULE_EXPORT int DLB_UnsetMaxParallelism(void);
/* The thesis's serial-phase hints: keep one CPU and lend the rest / back. */
JOULE_EXPORT int DLB_Single(void);
JOULE_EXPORT int DLB_Parallel(void);

/* ---- callbacks (called from inside DLB_* calls: polling mode) ---- */
JOULE_EXPORT int DLB_CallbackSet(dlb_callbacks_t which, dlb_callback_t callback, void *arg);
JOULE_EXPORT int DLB_CallbackGet(dlb_callbacks_t which, dlb_callback_t *callback, void **arg);

/* ---- lend ---- */
JOULE_EXPORT int DLB_Lend(void);
JOULE_EXPORT int DLB_LendCpu(int cpuid);
JOULE_EXPORT int DLB_LendCpus(int ncpus);
JOULE_EXPORT int DLB_LendCpuMask(const_dlb_cpu_set_t mask);
/* ---- reclaim (owner) ---- */
JOULE_EXPORT int DLB_Reclaim(void);
JOULE_EXPORT int DLB_ReclaimCpu(int cpuid);
JOULE_EXPORT int DLB_ReclaimCpus(int ncpus);
JOULE_EXPORT int DLB_ReclaimCpuMask(const_dlb_cpu_set_t mask);
/* ---- acquire: reclaim if owned, else borrow ---- */
JOULE_EXPORT int DLB_AcquireCpu(int cpuid);
JOULE_EXPORT int DLB_AcquireCpus(int ncpus);
JOULE_EXPORT int DLB_AcquireCpuMask(const_dlb_cpu_set_t mask);
/* ---- borrow (idle CPUs of others) ---- */
JOULE_EXPORT int DLB_Borrow(void);
JOULE_EXPORT int DLB_BorrowCpu(int cpuid);
JOULE_EXPORT int DLB_BorrowCpus(int ncpus);
JOULE_EXPORT int DLB_BorrowCpuMask(const_dlb_cpu_set_t mask);
/* ---- return (borrower) ---- */
JOULE_EXPORT int DLB_Return(void);
JOULE_EXPORT int DLB_ReturnCpu(int cpuid);
JOULE_EXPORT int DLB_ReturnCpuMask(const_dlb_cpu_set_t mask);
/* DLB_SUCCESS if this process may run on cpuid now, DLB_NOUPDT if not yet
 * (reclaimed, its borrower has not given it back), DLB_ERR_PERM if the CPU
 * is neither owned nor borrowed by this process. */
JOULE_EXPORT int DLB_CheckCpuAvailability(int cpuid);

/* ---- DROM: this process's side ---- */
/* DLB_SUCCESS and the new mask if it changed since the last poll, else DLB_NOUPDT. */
JOULE_EXPORT int DLB_PollDROM(int *ncpus, dlb_cpu_set_t mask);
/* Polls and, on a change, calls the set_process_mask callback. */
JOULE_EXPORT int DLB_PollDROM_Update(void);

/* ---- DROM: a resource manager's side (no CPUs owned) ---- */
JOULE_EXPORT int DLB_DROM_Attach(void);
JOULE_EXPORT int DLB_DROM_Detach(void);
JOULE_EXPORT int DLB_DROM_GetNumCpus(int *ncpus);
JOULE_EXPORT int DLB_DROM_GetPidList(int *pidlist, int *nelems, int max_len);
JOULE_EXPORT int DLB_DROM_GetProcessMask(int pid, dlb_cpu_set_t mask, dlb_drom_flags_t flags);
/* DLB_ERR_PERM for a CPU owned by a third process, and at once for a mask
 * the target could never apply: one without the CPU of the thread that
 * started its runtime (worker 0), the empty mask included. */
JOULE_EXPORT int DLB_DROM_SetProcessMask(int pid, const_dlb_cpu_set_t mask, dlb_drom_flags_t flags);
/* The thesis's draft names: always synchronous (up to JOULE_LEWI_DROM_TIMEOUT_MS). */
JOULE_EXPORT int DLB_GetProcessMask(int pid, dlb_cpu_set_t mask);
JOULE_EXPORT int DLB_SetProcessMask(int pid, const_dlb_cpu_set_t mask);

/* ---- misc ---- */
JOULE_EXPORT const char *DLB_Strerror(int errnum);
/* Prints the node's CPU table to stderr (both arguments ignored). */
JOULE_EXPORT int DLB_PrintShmem(int num_columns, int print_flags);

#ifdef __cplusplus
}
#endif

#endif /* JOULE_DLB_H */
