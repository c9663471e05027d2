/* <dlb_sp.h>: DLB's subprocess API (an explicit handle per "subprocess").
 * joule's node table identifies a participant by its pid and a process has
 * one session (runtime/lending/lewi_session.hpp), so several handles in one
 * process cannot own separate CPUs: DLB_Init_sp returns NULL and every other
 * call DLB_ERR_NOCOMP, as docs/dlb-api.md says. Use one process per
 * participant with the plain API instead. */
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
JOULE_EXPORT int DLB_Lend_sp(dlb_handler_t handler);
JOULE_EXPORT int DLB_Reclaim_sp(dlb_handler_t handler);
JOULE_EXPORT int DLB_AcquireCpus_sp(dlb_handler_t handler, int ncpus);
JOULE_EXPORT int DLB_Borrow_sp(dlb_handler_t handler);
JOULE_EXPORT int DLB_Return_sp(dlb_handler_t handler);
JOULE_EXPORT int DLB_PollDROM_sp(dlb_handler_t handler, int *ncpus, dlb_cpu_set_t mask);

#ifdef __cplusplus
}
#endif

#endif /* JOULE_DLB_COMPAT_SP_H */
