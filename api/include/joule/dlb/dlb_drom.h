/* <dlb_drom.h>: DROM, a resource manager's side. The masks and the DROM
 * calls already in joule/dlb.h, plus the string form and the pre-start
 * registration of a child (docs/dlb-api.md). */
#ifndef JOULE_DLB_COMPAT_DROM_H
#define JOULE_DLB_COMPAT_DROM_H

#include "../dlb.h"

#ifdef __cplusplus
extern "C" {
#endif

/* As DLB_DROM_SetProcessMask, the mask given as a CPU list ("0-3,6");
 * DLB_ERR_NOENT for a string that is not one. */
JOULE_EXPORT int DLB_DROM_SetProcessMaskStr(int pid, const char *mask, dlb_drom_flags_t flags);
/* A launcher registers process pid (its child, which exec keeps) owning the
 * CPUs of mask in the node table before it starts: the child's DLB_Init
 * takes the registration over, and the CPUs when it gives no mask.
 * DLB_ERR_PERM if a CPU has another owner, DLB_ERR_INIT if pid is
 * registered already, DLB_ERR_NOPROC if it does not exist. PostFinalize,
 * after the child ended, frees what it left (DLB_NOUPDT: nothing left). */
JOULE_EXPORT int DLB_DROM_PreInit(int pid, const_dlb_cpu_set_t mask, dlb_drom_flags_t flags,
                                  char ***next_environ);
JOULE_EXPORT int DLB_DROM_PostFinalize(int pid, dlb_drom_flags_t flags);
/* joule never steals a CPU (DLB_DROM_PreInit refuses one another process
 * owns), so there is never anything to recover: DLB_NOUPDT for a registered
 * pid, DLB_ERR_NOPROC for another, DLB_ERR_NOSHMEM without a node table. */
JOULE_EXPORT int DLB_DROM_RecoverStolenCpus(int pid);

#ifdef __cplusplus
}
#endif

#endif /* JOULE_DLB_COMPAT_DROM_H */
