/* <nanox/nanos_omp.h>: the path some OmpSs-1 programs include; the same as
 * <nanos_omp.h>. */
#include "../nanos_omp.h"
