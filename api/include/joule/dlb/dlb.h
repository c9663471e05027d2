/* <dlb.h> for programs written against DLB: put include/joule/dlb on the
 * include path (pkg-config joule-dlb, CMake joule::dlb) and link libjoule.
 * The declarations are joule's own, in joule/dlb.h (docs/dlb-api.md). */
#ifndef JOULE_DLB_COMPAT_DLB_H
#define JOULE_DLB_COMPAT_DLB_H

#include "../dlb.h"
#include "dlb_errors.h"
#include "dlb_types.h"

#endif /* JOULE_DLB_COMPAT_DLB_H */
