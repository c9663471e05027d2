/* <nanos_omp.h>: the Nanos++ (OmpSs-1) thread queries OmpSs-1 programs call;
 * `joulecc --ompss` includes it in every source, as Mercurium's --ompss did
 * (-include nanos_omp.h). In OmpSs the whole program is one team: its
 * threads are joule's workers (docs/porting-ompss-semantics.md, "The Nanos6
 * API"). Also <nanox/nanos_omp.h>. */
#ifndef JOULE_NANOS_OMP_H
#define JOULE_NANOS_OMP_H

#include "joule/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The number of workers (JOULE_WORKERS / JOULE_CPUS). */
JOULE_EXPORT int nanos_omp_get_num_threads(void);
JOULE_EXPORT int nanos_omp_get_max_threads(void);
/* The calling worker's index in [0, nanos_omp_get_num_threads()); 0 on a
 * thread that is not a worker. */
JOULE_EXPORT int nanos_omp_get_thread_num(void);
/* Nanos++ (and DLB, through its callback) resized the team here. joule's
 * worker count is fixed at start: asking for that count does nothing, any
 * other count n >= 1 is accepted with one warning on stderr (the team stays
 * as it is; DLB's lending moves CPUs between processes instead, see
 * docs/lending.md), and n < 1 stops the program. */
JOULE_EXPORT void nanos_omp_set_num_threads(int nthreads);

#ifdef __cplusplus
}
#endif

#endif /* JOULE_NANOS_OMP_H */
