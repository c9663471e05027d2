// The omp_* runtime API (C names) of libjoule-omp: thread numbers and team
// sizes of the calling thread's team, the ICVs, and host-only answers for
// devices. Places, binding and the affinity display are in places.cpp and
// affinity_format.cpp. Locks come from api/adapters/omp_compat/omp_locks.cpp, shared with
// libjoule_omp_compat.
#include <time.h>

#include "joule/omp/omp.h"
#include "joule/team.h"
#include "team.hpp"

using namespace joule::omp;

namespace {

// The team at `level` (0: the initial thread's), with the calling thread's
// ancestor number in it; null when the level does not exist.
Team* team_at(int level, int* id) {
  Team* t = current_team();
  *id = self().id;
  if (level < 0 || level > t->level) return nullptr;
  while (t && t->level > level) {
    *id = t->parent_id;
    t = t->parent;
  }
  return t;
}

}  // namespace

extern "C" {

JOULE_EXPORT int omp_get_thread_num(void) { return current_team()->n > 1 ? self().id : 0; }
JOULE_EXPORT int omp_get_num_threads(void) { return current_team()->n; }
JOULE_EXPORT int omp_get_max_threads(void) { return max_team_size(); }
// A team's thread_limit (or its ICV), else its share of the workers
// (teams.cpp), else every worker.
JOULE_EXPORT int omp_get_thread_limit(void) {
  const Team* t = current_team();
  if (t->thread_limit > 0) return t->thread_limit;
  return t->share > 0 ? t->share : joule_worker_count();
}
JOULE_EXPORT int omp_get_level(void) { return current_team()->level; }
JOULE_EXPORT int omp_get_active_level(void) { return current_team()->active_level; }
JOULE_EXPORT int omp_in_parallel(void) { return current_team()->active_level > 0; }
JOULE_EXPORT int omp_in_final(void) { return self().in_final || joule_in_final(); }

JOULE_EXPORT int omp_get_ancestor_thread_num(int level) {
  int id = 0;
  return team_at(level, &id) ? id : -1;
}

JOULE_EXPORT int omp_get_team_size(int level) {
  int id = 0;
  Team* t = team_at(level, &id);
  return t ? t->n : -1;
}

// Sizing the team pins it, unless dynamic adjustment was asked for explicitly.
JOULE_EXPORT void omp_set_num_threads(int n) {
  Icv& v = icv();
  v.nthreads = n > 0 ? n : 1;
  if (!v.dynamic_explicit) v.dynamic = false;
}

JOULE_EXPORT void omp_set_dynamic(int on) {
  icv().dynamic = on != 0;
  icv().dynamic_explicit = true;
}
JOULE_EXPORT int omp_get_dynamic(void) { return icv().dynamic; }

JOULE_EXPORT void omp_set_nested(int on) { icv().max_active_levels = on ? 255 : 1; }
JOULE_EXPORT int omp_get_nested(void) { return icv().max_active_levels > 1; }
JOULE_EXPORT void omp_set_max_active_levels(int n) { icv().max_active_levels = n < 0 ? 0 : n; }
JOULE_EXPORT int omp_get_max_active_levels(void) { return icv().max_active_levels; }
JOULE_EXPORT int omp_get_supported_active_levels(void) { return 1; }
JOULE_EXPORT int omp_get_cancellation(void) { return 0; }
JOULE_EXPORT int omp_get_max_task_priority(void) { return icv().max_task_priority; }

JOULE_EXPORT void omp_set_schedule(int kind, int chunk) {
  Icv& v = icv();
  v.run_sched =
      (kind & 0x7fffffff) >= kStatic && (kind & 0x7fffffff) <= kAuto ? kind & 0x7fffffff : kDynamic;
  v.run_chunk = chunk > 0 ? chunk : 0;
}

JOULE_EXPORT void omp_get_schedule(int* kind, int* chunk) {
  *kind = icv().run_sched;
  *chunk = icv().run_chunk;
}

JOULE_EXPORT double omp_get_wtime(void) {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

JOULE_EXPORT double omp_get_wtick(void) {
  timespec ts;
  clock_getres(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// Host only: the devices are in device_api.cpp, the teams queries in
// teams_target.cpp.

JOULE_EXPORT void omp_init_lock_with_hint(omp_lock_t* l, int) { omp_init_lock(l); }
JOULE_EXPORT void omp_init_nest_lock_with_hint(omp_nest_lock_t* l, int) { omp_init_nest_lock(l); }

}  // extern "C"
