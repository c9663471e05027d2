// The teams ICV routines as gfortran calls them (omp_fortran.cpp explains
// the names: a trailing underscore, arguments by reference, _8_ twins for
// integer(8) arguments).
#include <cstdint>

#include "joule/omp/omp.h"

extern "C" {

int omp_get_num_teams(void);
int omp_get_team_num(void);
void omp_set_num_teams(int);
int omp_get_max_teams(void);
void omp_set_teams_thread_limit(int);
int omp_get_teams_thread_limit(void);

JOULE_EXPORT int omp_get_num_teams_(void) { return omp_get_num_teams(); }
JOULE_EXPORT int omp_get_team_num_(void) { return omp_get_team_num(); }
JOULE_EXPORT int omp_get_max_teams_(void) { return omp_get_max_teams(); }
JOULE_EXPORT int omp_get_teams_thread_limit_(void) { return omp_get_teams_thread_limit(); }
JOULE_EXPORT void omp_set_num_teams_(const int* n) { omp_set_num_teams(*n); }
JOULE_EXPORT void omp_set_num_teams_8_(const std::int64_t* n) { omp_set_num_teams(int(*n)); }
JOULE_EXPORT void omp_set_teams_thread_limit_(const int* n) { omp_set_teams_thread_limit(*n); }
JOULE_EXPORT void omp_set_teams_thread_limit_8_(const std::int64_t* n) {
  omp_set_teams_thread_limit(int(*n));
}

}  // extern "C"
