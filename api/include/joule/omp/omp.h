/* joule's <omp.h>: the OpenMP runtime API that OmpSs programs call, answered
 * by joule (libjoule_omp_compat). joulecc puts this directory first on the
 * include path when the compiler does not run OpenMP itself (no -fopenmp),
 * so `#include <omp.h>` finds it before the compiler's own.
 *
 * Thread counts and ids are joule workers; the whole program is one
 * parallel region, as under OmpSs.
 *
 * Programs often define fallback macros when _OPENMP is not defined
 * (`#define omp_get_thread_num() 0`) and include this header as well: every
 * function name below is parenthesised so such macros do not expand in the
 * declarations, and the lock types are skipped when a macro names them.
 * The lock types have the size and alignment of libgomp's.
 */
#ifndef JOULE_OMP_H
#define JOULE_OMP_H

#include <stddef.h>

#include <joule/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef omp_lock_t
typedef struct omp_lock_t {
  int _word[1];
} omp_lock_t;
#endif

#ifndef omp_nest_lock_t
typedef struct omp_nest_lock_t {
  int _word[2];
  void *_owner;
} omp_nest_lock_t;
#endif

JOULE_EXPORT int(omp_get_num_threads)(void);
JOULE_EXPORT int(omp_get_thread_num)(void);
JOULE_EXPORT int(omp_get_max_threads)(void);
JOULE_EXPORT int(omp_get_num_procs)(void);
JOULE_EXPORT int(omp_get_thread_limit)(void);
JOULE_EXPORT int(omp_in_parallel)(void);
JOULE_EXPORT int(omp_in_final)(void);
JOULE_EXPORT int(omp_get_level)(void);
JOULE_EXPORT int(omp_get_active_level)(void);
JOULE_EXPORT void(omp_set_num_threads)(int n);
JOULE_EXPORT void(omp_set_dynamic)(int on);
JOULE_EXPORT int(omp_get_dynamic)(void);
JOULE_EXPORT void(omp_set_nested)(int on);
JOULE_EXPORT int(omp_get_nested)(void);
JOULE_EXPORT double(omp_get_wtime)(void);
JOULE_EXPORT double(omp_get_wtick)(void);

/* Places and binding (OpenMP 5.x, "Thread affinity"): docs/openmp.md. */
JOULE_EXPORT int(omp_get_proc_bind)(void);
JOULE_EXPORT int(omp_get_num_places)(void);
JOULE_EXPORT int(omp_get_place_num_procs)(int place);
JOULE_EXPORT void(omp_get_place_proc_ids)(int place, int *ids);
JOULE_EXPORT int(omp_get_place_num)(void);
JOULE_EXPORT int(omp_get_partition_num_places)(void);
JOULE_EXPORT void(omp_get_partition_place_nums)(int *places);
JOULE_EXPORT void(omp_set_affinity_format)(const char *format);
JOULE_EXPORT size_t(omp_get_affinity_format)(char *buffer, size_t size);
JOULE_EXPORT void(omp_display_affinity)(const char *format);
JOULE_EXPORT size_t(omp_capture_affinity)(char *buffer, size_t size, const char *format);

JOULE_EXPORT void(omp_init_lock)(omp_lock_t *lock);
JOULE_EXPORT void(omp_destroy_lock)(omp_lock_t *lock);
JOULE_EXPORT void(omp_set_lock)(omp_lock_t *lock);
JOULE_EXPORT void(omp_unset_lock)(omp_lock_t *lock);
JOULE_EXPORT int(omp_test_lock)(omp_lock_t *lock);

JOULE_EXPORT void(omp_init_nest_lock)(omp_nest_lock_t *lock);
JOULE_EXPORT void(omp_destroy_nest_lock)(omp_nest_lock_t *lock);
JOULE_EXPORT void(omp_set_nest_lock)(omp_nest_lock_t *lock);
JOULE_EXPORT void(omp_unset_nest_lock)(omp_nest_lock_t *lock);
/* The new nesting count, 0 when another thread holds the lock. */
JOULE_EXPORT int(omp_test_nest_lock)(omp_nest_lock_t *lock);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* JOULE_OMP_H */
