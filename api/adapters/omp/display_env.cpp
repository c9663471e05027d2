// omp_display_env and OMP_DISPLAY_ENV (OpenMP 5.2 §18.15, §21.7): the ICVs
// as `NAME = 'value'` lines between "OPENMP DISPLAY ENVIRONMENT BEGIN" and
// "... END", on stderr as libgomp prints them; verbose adds joule's worker
// count. Also omp_pause_resource(_all) and gfortran's twins of these.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "affinity.hpp"
#include "allocators.hpp"
#include "joule/team.h"
#include "team.hpp"

extern "C" {
int omp_get_dynamic(void);
int omp_get_nested(void);
int omp_get_max_threads(void);
int omp_get_thread_limit(void);
int omp_get_max_active_levels(void);
int omp_get_default_device(void);
int omp_get_initial_device(void);
int omp_get_max_task_priority(void);
int omp_get_proc_bind(void);
int omp_get_place_num_procs(int);
void omp_get_place_proc_ids(int, int*);
}

namespace joule::omp {
namespace {

const char* truth(bool b) { return b ? "TRUE" : "FALSE"; }

std::string schedule_text() {
  static const char* const kinds[] = {"RUNTIME", "STATIC", "DYNAMIC", "GUIDED", "AUTO"};
  const Icv& v = icv();
  std::string s = v.run_sched >= kStatic && v.run_sched <= kAuto ? kinds[v.run_sched] : "DYNAMIC";
  return v.run_chunk > 1 ? s + "," + std::to_string(v.run_chunk) : s;
}

// {0,1},{2,3}: the places, each its CPUs.
std::string places_text() {
  std::string out;
  for (int p = 0; p < affinity().num_places; ++p) {
    std::vector<int> ids(std::size_t(omp_get_place_num_procs(p)));
    omp_get_place_proc_ids(p, ids.data());
    out += p ? ",{" : "{";
    for (std::size_t i = 0; i < ids.size(); ++i) out += (i ? "," : "") + std::to_string(ids[i]);
    out += '}';
  }
  return out;
}

const char* allocator_name(Handle h) {
  static const char* const names[] = {
      "omp_null_allocator",   "omp_default_mem_alloc", "omp_large_cap_mem_alloc",
      "omp_const_mem_alloc",  "omp_high_bw_mem_alloc", "omp_low_lat_mem_alloc",
      "omp_cgroup_mem_alloc", "omp_pteam_mem_alloc",   "omp_thread_mem_alloc"};
  return h <= kLastPredefined ? names[h] : "(an allocator of omp_init_allocator)";
}

void line(const char* name, const std::string& value) {
  std::fprintf(stderr, "  %s = '%s'\n", name, value.c_str());
}

}  // namespace

void display_env(bool verbose) {
  static const char* const binds[] = {"FALSE", "TRUE", "PRIMARY", "CLOSE", "SPREAD"};
  joule_omp_settings_t s{};
  s.struct_size = sizeof s;
  joule_omp_get_settings(&s);
  const int bind = omp_get_proc_bind();
  std::fprintf(stderr, "\nOPENMP DISPLAY ENVIRONMENT BEGIN\n");
  line("_OPENMP", "201511");  // GCC 12's value of the macro
  line("OMP_DYNAMIC", truth(omp_get_dynamic()));
  line("OMP_NESTED", truth(omp_get_nested()));
  line("OMP_NUM_THREADS", std::to_string(omp_get_max_threads()));
  line("OMP_SCHEDULE", schedule_text());
  line("OMP_PROC_BIND", bind >= 0 && bind <= 4 ? binds[bind] : "FALSE");
  line("OMP_PLACES", places_text());
  line("OMP_STACKSIZE", std::to_string(s.stacksize));
  line("OMP_WAIT_POLICY", icv().wait_active ? "ACTIVE" : "PASSIVE");
  line("OMP_THREAD_LIMIT", std::to_string(omp_get_thread_limit()));
  line("OMP_MAX_ACTIVE_LEVELS", std::to_string(omp_get_max_active_levels()));
  line("OMP_NUM_TEAMS", std::to_string(icv().nteams));  // the ICVs: 0 when not set
  line("OMP_TEAMS_THREAD_LIMIT", std::to_string(icv().teams_thread_limit));
  line("OMP_CANCELLATION", "FALSE");
  line("OMP_DEFAULT_DEVICE", std::to_string(omp_get_default_device()));
  line("OMP_MAX_TASK_PRIORITY", std::to_string(omp_get_max_task_priority()));
  line("OMP_DISPLAY_AFFINITY", truth(affinity().display));
  line("OMP_AFFINITY_FORMAT", affinity_format());
  line("OMP_ALLOCATOR", allocator_name(default_allocator()));
  static const char* const offload[] = {"DEFAULT", "MANDATORY", "DISABLED"};
  line("OMP_TARGET_OFFLOAD", offload[icv().target_offload % 3]);
  if (verbose) line("JOULE_WORKERS", std::to_string(joule_worker_count()));
  std::fprintf(stderr, "OPENMP DISPLAY ENVIRONMENT END\n");
}

}  // namespace joule::omp

using namespace joule::omp;

extern "C" {

JOULE_EXPORT void omp_display_env(int verbose) {
  ensure_init();
  display_env(verbose != 0);
}
JOULE_EXPORT void omp_display_env_(const int* verbose) { omp_display_env(*verbose); }
JOULE_EXPORT void omp_display_env_8_(const std::int64_t* verbose) {
  omp_display_env(*verbose != 0);
}

// omp_pause_soft (1) and omp_pause_hard (2). joule keeps its workers, which
// sleep when idle, so there is nothing to release: success for the host
// (the initial device), -1 for any other device or kind, as libgomp.
JOULE_EXPORT int omp_pause_resource(int kind, int device) {
  if (kind != 1 && kind != 2) return -1;
  return device == omp_get_initial_device() ? 0 : -1;
}
JOULE_EXPORT int omp_pause_resource_all(int kind) { return kind == 1 || kind == 2 ? 0 : -1; }
JOULE_EXPORT int omp_pause_resource_(const int* kind, const int* device) {
  return omp_pause_resource(*kind, *device);
}
JOULE_EXPORT int omp_pause_resource_all_(const int* kind) { return omp_pause_resource_all(*kind); }

JOULE_EXPORT int omp_get_max_task_priority_(void) { return omp_get_max_task_priority(); }

}  // extern "C"
