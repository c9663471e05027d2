/* DLB-compatible names over joule's CPU lending (docs/lending.md).
 *
 * A program written against DLB's LeWI / DROM interface compiles against this
 * header and links libjoule instead of libdlb. The semantics follow DLB's
 * documentation; the implementation is joule's own node table (the same one
 * the runtime uses with JOULE_LENDING=node), so DLB calls and joule workers
 * never disagree about a CPU. The return codes have DLB's values; the other
 * enums are source-compatible only, and options come from JOULE_* keys, not
 * DLB_ARGS.
 *
 * Programs that include DLB's header names (<dlb.h>, <dlb_talp.h>, ...) put
 * include/joule/dlb on the include path (pkg-config joule-dlb, CMake
 * joule::dlb); those headers include this one (docs/dlb-api.md).
 *
 * Return codes: DLB_SUCCESS (0), DLB_NOUPDT (nothing to do), DLB_NOTED (will
 * happen later, e.g. a reclaimed CPU still run by its borrower), or a
 * negative DLB_ERR_*. */
#ifndef JOULE_DLB_H
#define JOULE_DLB_H

/* The types and error codes live with the DLB-named headers (joule/dlb/),
 * so that <dlb_types.h> and <dlb_errors.h> stand alone as in DLB. Types
 * first: they ask <sched.h> for cpu_set_t before anything else includes it. */
#include "dlb/dlb_errors.h"
#include "dlb/dlb_types.h"
#include "joule/joule.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- management ---- */
/* Joins the node table owning `mask` (NULL: JOULE_CPUS or the affinity
 * mask); ncpus and dlb_args are accepted and ignored. A second call returns
 * DLB_ERR_INIT. Works whatever JOULE_LENDING says (off becomes node). */
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
/* Up to ncpus CPUs (DLB_MAX_CPUS: all it can) taken among those of mask. */
JOULE_EXPORT int DLB_AcquireCpusInMask(int ncpus, const_dlb_cpu_set_t mask);
/* ---- borrow (idle CPUs of others) ---- */
JOULE_EXPORT int DLB_Borrow(void);
JOULE_EXPORT int DLB_BorrowCpu(int cpuid);
JOULE_EXPORT int DLB_BorrowCpus(int ncpus);
JOULE_EXPORT int DLB_BorrowCpuMask(const_dlb_cpu_set_t mask);
JOULE_EXPORT int DLB_BorrowCpusInMask(int ncpus, const_dlb_cpu_set_t mask);
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
/* The thesis's draft names: always synchronous (up to JOULE_LENDING_DROM_TIMEOUT_MS). */
JOULE_EXPORT int DLB_GetProcessMask(int pid, dlb_cpu_set_t mask);
JOULE_EXPORT int DLB_SetProcessMask(int pid, const_dlb_cpu_set_t mask);

/* ---- barrier across the processes of the node (dlb_barrier.cpp) ----
 * DLB_Init attaches the process to the node's default barrier; a barrier
 * returns once every attached process has reached it, or DLB_ERR_NOPROC as
 * soon as a participant dies (it is then dropped: the next barrier works). */
JOULE_EXPORT int DLB_Barrier(void);
JOULE_EXPORT int DLB_BarrierAttach(void);
JOULE_EXPORT int DLB_BarrierDetach(void);
/* A barrier of the node by name (attached on registration); NULL before
 * DLB_Init or for an empty name. */
JOULE_EXPORT dlb_barrier_t *DLB_BarrierNamedRegister(const char *barrier_name,
                                                     dlb_barrier_flags_t flags);
/* DLB's older name of DLB_BarrierNamedRegister. */
JOULE_EXPORT dlb_barrier_t *DLB_BarrierNamedGet(const char *barrier_name,
                                                dlb_barrier_flags_t flags);
JOULE_EXPORT int DLB_BarrierNamed(dlb_barrier_t *barrier);
JOULE_EXPORT int DLB_BarrierNamedAttach(dlb_barrier_t *barrier);
JOULE_EXPORT int DLB_BarrierNamedDetach(dlb_barrier_t *barrier);

/* ---- misc ---- */
/* The DLB API version joule follows (3.4.0), not joule's own version. */
/* Marks (true) or unmarks the calling thread as an observer: a thread that
 * is not a worker. Its LeWI calls and region starts / stops return
 * DLB_ERR_PERM, and TALP does not count its CPU time as useful. */
JOULE_EXPORT int DLB_SetObserverRole(bool thread_is_observer);
JOULE_EXPORT int DLB_GetVersion(int *major, int *minor, int *patch);
/* DLB's option names (e.g. "--lewi", "--drom", "--talp", "--barrier",
 * "--shm-key"), answered from joule's configuration. DLB_ERR_NOENT for an
 * unknown name; SetVariable: DLB_ERR_PERM, joule's options are read-only
 * once the process runs (JOULE_* keys, docs/configuration.md). */
JOULE_EXPORT int DLB_GetVariable(const char *variable, char *value);
JOULE_EXPORT int DLB_SetVariable(const char *variable, const char *value);
JOULE_EXPORT int DLB_PrintVariables(int print_extended);
/* Registers this process owning the CPUs of mask before DLB_Init (which then
 * takes them, given no mask): DLB_DROM_PreInit for the caller's own pid. */
JOULE_EXPORT int DLB_PreInit(const_dlb_cpu_set_t mask, char ***next_environ);
JOULE_EXPORT const char *DLB_Strerror(int errnum);
/* Prints the node's CPU table to stderr (both arguments ignored). */
JOULE_EXPORT int DLB_PrintShmem(int num_columns, int print_flags);
/* The GPUs this process sees, as DLB writes them: "0 (UUID=..1a2b, default),
 * 1 (UUID=..3c4d)" (full_uuid: the whole UUID), from joule's CUDA layer.
 * DLB_ERR_NOENT with "none" in the buffer when there is no GPU (or
 * JOULE_CUDA=off); DLB_ERR_NOMEM when the text does not fit. */
JOULE_EXPORT int DLB_GetGPUAffinity(char *buffer, size_t buffer_size, bool full_uuid);
/* Deprecated in DLB, which declares them and never defined them: joule
 * answers DLB_ERR_NOCOMP (no auto-sizer; the runtime sizes itself). */
JOULE_EXPORT int DLB_AutoSizerStart(void) __attribute__((deprecated));
JOULE_EXPORT int DLB_AutoSizerEnd(void) __attribute__((deprecated));

#ifdef __cplusplus
}
#endif

#endif /* JOULE_DLB_H */
