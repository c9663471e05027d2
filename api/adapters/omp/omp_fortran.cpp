// The omp_* API as gfortran calls it without the omp_lib module's C
// bindings: a trailing underscore, every argument by reference, and an _8_
// twin for integer(8) arguments. Logicals are default-kind integers.
// omp_lock_kind is 4 (a simple lock fits in place); omp_nest_lock_kind is 8,
// too small for a nested lock, so that one holds a pointer to it.
#include <cstdint>

#include "joule/omp/omp.h"

extern "C" {

int omp_get_max_threads(void);
int omp_get_thread_limit(void);
int omp_get_ancestor_thread_num(int);
int omp_get_team_size(int);
int omp_get_supported_active_levels(void);
int omp_get_cancellation(void);
int omp_get_proc_bind(void);
void omp_set_max_active_levels(int);
int omp_get_max_active_levels(void);
void omp_set_schedule(int, int);
void omp_get_schedule(int*, int*);

JOULE_EXPORT int omp_get_thread_num_(void) { return omp_get_thread_num(); }
JOULE_EXPORT int omp_get_num_threads_(void) { return omp_get_num_threads(); }
JOULE_EXPORT int omp_get_max_threads_(void) { return omp_get_max_threads(); }
JOULE_EXPORT int omp_get_num_procs_(void) { return omp_get_num_procs(); }
JOULE_EXPORT int omp_get_thread_limit_(void) { return omp_get_thread_limit(); }
JOULE_EXPORT int omp_in_parallel_(void) { return omp_in_parallel(); }
JOULE_EXPORT int omp_in_final_(void) { return omp_in_final(); }
JOULE_EXPORT int omp_get_level_(void) { return omp_get_level(); }
JOULE_EXPORT int omp_get_active_level_(void) { return omp_get_active_level(); }
JOULE_EXPORT int omp_get_dynamic_(void) { return omp_get_dynamic(); }
JOULE_EXPORT int omp_get_nested_(void) { return omp_get_nested(); }
JOULE_EXPORT int omp_get_cancellation_(void) { return omp_get_cancellation(); }
JOULE_EXPORT int omp_get_proc_bind_(void) { return omp_get_proc_bind(); }
JOULE_EXPORT int omp_get_max_active_levels_(void) { return omp_get_max_active_levels(); }
JOULE_EXPORT int omp_get_supported_active_levels_(void) {
  return omp_get_supported_active_levels();
}
JOULE_EXPORT double omp_get_wtime_(void) { return omp_get_wtime(); }
JOULE_EXPORT double omp_get_wtick_(void) { return omp_get_wtick(); }

JOULE_EXPORT void omp_set_num_threads_(const int* n) { omp_set_num_threads(*n); }
JOULE_EXPORT void omp_set_num_threads_8_(const std::int64_t* n) { omp_set_num_threads(int(*n)); }
JOULE_EXPORT void omp_set_dynamic_(const int* on) { omp_set_dynamic(*on); }
JOULE_EXPORT void omp_set_dynamic_8_(const std::int64_t* on) { omp_set_dynamic(*on != 0); }
JOULE_EXPORT void omp_set_nested_(const int* on) { omp_set_nested(*on); }
JOULE_EXPORT void omp_set_nested_8_(const std::int64_t* on) { omp_set_nested(*on != 0); }
JOULE_EXPORT void omp_set_max_active_levels_(const int* n) { omp_set_max_active_levels(*n); }
JOULE_EXPORT void omp_set_max_active_levels_8_(const std::int64_t* n) {
  omp_set_max_active_levels(int(*n));
}
JOULE_EXPORT int omp_get_ancestor_thread_num_(const int* l) {
  return omp_get_ancestor_thread_num(*l);
}
JOULE_EXPORT int omp_get_ancestor_thread_num_8_(const std::int64_t* l) {
  return omp_get_ancestor_thread_num(int(*l));
}
JOULE_EXPORT int omp_get_team_size_(const int* l) { return omp_get_team_size(*l); }
JOULE_EXPORT int omp_get_team_size_8_(const std::int64_t* l) { return omp_get_team_size(int(*l)); }
JOULE_EXPORT void omp_set_schedule_(const int* kind, const int* chunk) {
  omp_set_schedule(*kind, *chunk);
}
JOULE_EXPORT void omp_set_schedule_8_(const int* kind, const std::int64_t* chunk) {
  omp_set_schedule(*kind, int(*chunk));
}
JOULE_EXPORT void omp_get_schedule_(int* kind, int* chunk) { omp_get_schedule(kind, chunk); }
JOULE_EXPORT void omp_get_schedule_8_(int* kind, std::int64_t* chunk) {
  int c = 0;
  omp_get_schedule(kind, &c);
  *chunk = c;
}

JOULE_EXPORT void omp_init_lock_(omp_lock_t* l) { omp_init_lock(l); }
JOULE_EXPORT void omp_destroy_lock_(omp_lock_t* l) { omp_destroy_lock(l); }
JOULE_EXPORT void omp_set_lock_(omp_lock_t* l) { omp_set_lock(l); }
JOULE_EXPORT void omp_unset_lock_(omp_lock_t* l) { omp_unset_lock(l); }
JOULE_EXPORT int omp_test_lock_(omp_lock_t* l) { return omp_test_lock(l); }

JOULE_EXPORT void omp_init_nest_lock_(omp_nest_lock_t** l) {
  *l = new omp_nest_lock_t;
  omp_init_nest_lock(*l);
}
JOULE_EXPORT void omp_destroy_nest_lock_(omp_nest_lock_t** l) {
  omp_destroy_nest_lock(*l);
  delete *l;
  *l = nullptr;
}
JOULE_EXPORT void omp_set_nest_lock_(omp_nest_lock_t** l) { omp_set_nest_lock(*l); }
JOULE_EXPORT void omp_unset_nest_lock_(omp_nest_lock_t** l) { omp_unset_nest_lock(*l); }
JOULE_EXPORT int omp_test_nest_lock_(omp_nest_lock_t** l) { return omp_test_nest_lock(*l); }

}  // extern "C"
