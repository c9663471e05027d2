/* DLB's application manager (MNGO) under the header name DLB programs
 * include (<dlb_mngo.h>). In DLB, MNGO is a manager that measures annotated
 * regions and applies LeWI or DROM policies to them, enabled with
 * DLB_ARGS="--mngo". joule has no such manager: its runtime lends and
 * reclaims CPUs at task boundaries itself. Each call answers as DLB does
 * without --mngo: DLB_ERR_NOMNGO, and DLB_MNGO_RegionRegister NULL; DLB_ARGS
 * --mngo is refused at start, naming the option (docs/dlb-api.md). */
#ifndef JOULE_DLB_MNGO_H
#define JOULE_DLB_MNGO_H

#include "../dlb.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which policy an MNGO region is balanced with (DLB's values). */
typedef enum dlb_mngo_region_flag_t {
  DLB_LEWI_REGION = 1 << 0,
  DLB_DROM_REGION = 1 << 1
} dlb_mngo_region_flags_t;

JOULE_EXPORT int DLB_MNGO_Wake_manager(void);
JOULE_EXPORT int DLB_MNGO_Enable_LeWI(void);
JOULE_EXPORT int DLB_MNGO_Poll_DROM(void);
JOULE_EXPORT dlb_mngo_region_t *DLB_MNGO_RegionRegister(const char *name);
JOULE_EXPORT int DLB_MNGO_RegionStart(dlb_mngo_region_t *region);
JOULE_EXPORT int DLB_MNGO_RegionStop(dlb_mngo_region_t *region);

#ifdef __cplusplus
}
#endif

#endif /* JOULE_DLB_MNGO_H */
