/* <dlb_sp.h>: DLB's subprocess API (an explicit handle per "subprocess").
 * Each handle DLB_Init_sp returns is a participant of joule's node CPU
 * table of its own (an id made of the process's pid and the handle's
 * number), with its own CPUs, hints and callbacks: several handles in one
 * process lend and borrow between each other as processes do
 * (docs/dlb-api.md). A null or finalised handle gives DLB_ERR_NOINIT. */
#ifndef JOULE_DLB_COMPAT_SP_H
#define JOULE_DLB_COMPAT_SP_H

#include "../dlb.h"

#ifdef __cplusplus
extern "C" {
#endif

JOULE_EXPORT dlb_handler_t DLB_Init_sp(int ncpus, const_dlb_cpu_set_t mask, const char *dlb_args);
JOULE_EXPORT int DLB_Finalize_sp(dlb_handler_t handler);
JOULE_EXPORT int DLB_Enable_sp(dlb_handler_t handler);
JOULE_EXPORT int DLB_Disable_sp(dlb_handler_t handler);
JOULE_EXPORT int DLB_SetMaxParallelism_sp(dlb_handler_t handler, int max);
JOULE_EXPORT int DLB_UnsetMaxParallelism_sp(dlb_handler_t handler);
JOULE_EXPORT int DLB_CallbackSet_sp(dlb_handler_t handler, dlb_callbacks_t which,
                                    dlb_callback_t callback, void *arg);
JOULE_EXPORT int DLB_CallbackGet_sp(dlb_handler_t handler, dlb_callbacks_t which,
                                    dlb_callback_t *callback, void **arg);
JOULE_EXPORT int DLB_Lend_sp(dlb_handler_t handler);
JOULE_EXPORT int DLB_LendCpu_sp(dlb_handler_t handler, int cpuid);
JOULE_EXPORT int DLB_LendCpus_sp(dlb_handler_t handler, int ncpus);
JOULE_EXPORT int DLB_LendCpuMask_sp(dlb_handler_t handler, const_dlb_cpu_set_t mask);
JOULE_EXPORT int DLB_Reclaim_sp(dlb_handler_t handler);
JOULE_EXPORT int DLB_ReclaimCpu_sp(dlb_handler_t handler, int cpuid);
JOULE_EXPORT int DLB_ReclaimCpus_sp(dlb_handler_t handler, int ncpus);
JOULE_EXPORT int DLB_ReclaimCpuMask_sp(dlb_handler_t handler, const_dlb_cpu_set_t mask);
JOULE_EXPORT int DLB_AcquireCpu_sp(dlb_handler_t handler, int cpuid);
JOULE_EXPORT int DLB_AcquireCpus_sp(dlb_handler_t handler, int ncpus);
JOULE_EXPORT int DLB_AcquireCpuMask_sp(dlb_handler_t handler, const_dlb_cpu_set_t mask);
JOULE_EXPORT int DLB_AcquireCpusInMask_sp(dlb_handler_t handler, int ncpus,
                                          const_dlb_cpu_set_t mask);
JOULE_EXPORT int DLB_Borrow_sp(dlb_handler_t handler);
JOULE_EXPORT int DLB_BorrowCpu_sp(dlb_handler_t handler, int cpuid);
JOULE_EXPORT int DLB_BorrowCpus_sp(dlb_handler_t handler, int ncpus);
JOULE_EXPORT int DLB_BorrowCpuMask_sp(dlb_handler_t handler, const_dlb_cpu_set_t mask);
JOULE_EXPORT int DLB_BorrowCpusInMask_sp(dlb_handler_t handler, int ncpus,
                                         const_dlb_cpu_set_t mask);
JOULE_EXPORT int DLB_Return_sp(dlb_handler_t handler);
JOULE_EXPORT int DLB_ReturnCpu_sp(dlb_handler_t handler, int cpuid);
JOULE_EXPORT int DLB_ReturnCpuMask_sp(dlb_handler_t handler, const_dlb_cpu_set_t mask);
JOULE_EXPORT int DLB_PollDROM_sp(dlb_handler_t handler, int *ncpus, dlb_cpu_set_t mask);
JOULE_EXPORT int DLB_PollDROM_Update_sp(dlb_handler_t handler);
JOULE_EXPORT int DLB_CheckCpuAvailability_sp(dlb_handler_t handler, int cpuid);
JOULE_EXPORT int DLB_SetVariable_sp(dlb_handler_t handler, const char *variable, const char *value);
JOULE_EXPORT int DLB_GetVariable_sp(dlb_handler_t handler, const char *variable, char *value);
JOULE_EXPORT int DLB_PrintVariables_sp(dlb_handler_t handler, int print_extended);
JOULE_EXPORT int DLB_PrintShmem_sp(dlb_handler_t handler, int num_columns, int print_flags);

#ifdef __cplusplus
}
#endif

#endif /* JOULE_DLB_COMPAT_SP_H */
